// client-go's informer (k8s.io/client-go v0.37.2, a SharedIndexInformer over ConfigMaps of one
// namespace, as controller-runtime's cache starts one) from start to synced, for
// bench/protobuf.ts. -content-type chooses protobuf (controller-runtime's default for built-in
// kinds) or JSON. Reads the kubeconfig from -kubeconfig; first syncs a warm-up namespace (TLS,
// code paths), then the measured one. Prints one JSON line: wall and CPU (user + system)
// nanoseconds from start to synced, and the count.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

func cpuNs() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func sync(cs kubernetes.Interface, ns string) (int, func()) {
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().ConfigMaps().Informer()
	stop := make(chan struct{})
	factory.Start(stop)
	if !cache.WaitForCacheSync(stop, inf.HasSynced) {
		fmt.Fprintln(os.Stderr, "not synced")
		os.Exit(1)
	}
	n := len(inf.GetStore().List())
	return n, func() { close(stop); factory.Shutdown() }
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig path")
	contentType := flag.String("content-type", "application/vnd.kubernetes.protobuf", "ContentType")
	ns := flag.String("namespace", "", "namespace to sync")
	warm := flag.String("warm", "", "warm-up namespace")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the measured sync")
	flag.Parse()
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		panic(err)
	}
	cfg.ContentType = *contentType
	cfg.QPS = -1
	cs := kubernetes.NewForConfigOrDie(cfg)
	if *warm != "" {
		_, stop := sync(cs, *warm)
		stop()
	}
	if *profile != "" {
		f, _ := os.Create(*profile)
		_ = pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	c0 := cpuNs()
	t0 := time.Now()
	n, stop := sync(cs, *ns)
	wall := time.Since(t0).Nanoseconds()
	cpu := cpuNs() - c0
	_ = corev1.ConfigMap{}
	out, _ := json.Marshal(map[string]int64{"wallNs": wall, "cpuNs": cpu, "count": int64(n)})
	fmt.Println(string(out))
	stop()
}

// controller-runtime's fake client (sigs.k8s.io/controller-runtime/pkg/client/fake, v0.24.1)
// doing the work bench/fake-client.ts gives every side: first use (a client built, 100
// ConfigMaps created, read, updated, listed once), a warm-up of the whole work on another
// namespace, then N ConfigMaps created, read, updated, and listed L times, then clients built
// anew. Prints one JSON line: per phase, the operations and the wall and CPU (user + system)
// nanoseconds.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

type phase struct {
	Ops    int   `json:"ops"`
	WallNs int64 `json:"wallNs"`
	CPUNs  int64 `json:"cpuNs"`
}

func cpuNs() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func measure(ops int, fn func(i int) error) phase {
	c0, t0 := cpuNs(), time.Now()
	for i := 0; i < ops; i++ {
		if err := fn(i); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	return phase{Ops: ops, WallNs: time.Since(t0).Nanoseconds(), CPUNs: cpuNs() - c0}
}

func configMap(ns string, i int) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("cm-%d", i),
			Namespace: ns,
			Labels:    map[string]string{"app": "bench", "shard": fmt.Sprintf("s%d", i%4)},
		},
		Data: map[string]string{"key": fmt.Sprintf("value-%d", i), "mode": "initial"},
	}
}

func run(ctx context.Context, c client.Client, ns string, n, lists int) (map[string]phase, error) {
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return nil, err
	}
	got := make([]*corev1.ConfigMap, n)
	out := map[string]phase{}
	out["create"] = measure(n, func(i int) error { return c.Create(ctx, configMap(ns, i)) })
	out["get"] = measure(n, func(i int) error {
		cm := &corev1.ConfigMap{}
		got[i] = cm
		return c.Get(ctx, client.ObjectKey{Namespace: ns, Name: fmt.Sprintf("cm-%d", i)}, cm)
	})
	out["update"] = measure(n, func(i int) error {
		cm := got[i]
		cm.Data["mode"] = "updated"
		return c.Update(ctx, cm)
	})
	out["list"] = measure(lists, func(int) error {
		l := &corev1.ConfigMapList{}
		if err := c.List(ctx, l, client.InNamespace(ns)); err != nil {
			return err
		}
		if len(l.Items) != n {
			return fmt.Errorf("listed %d, want %d", len(l.Items), n)
		}
		return nil
	})
	return out, nil
}

func main() {
	n := flag.Int("n", 2000, "ConfigMaps")
	lists := flag.Int("lists", 20, "lists of the namespace")
	warm := flag.Int("warm", 2000, "ConfigMaps of the warm-up")
	builds := flag.Int("builds", 10, "clients built after the run")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the measured run there")
	flag.Parse()
	ctx := context.Background()
	var c client.WithWatch
	first := measure(1, func(int) error {
		c = fake.NewClientBuilder().Build()
		_, err := run(ctx, c, "bench-cold", 100, 1)
		return err
	})
	if _, err := run(ctx, c, "bench-warm", *warm, 3); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			panic(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			panic(err)
		}
		defer pprof.StopCPUProfile()
	}
	out, err := run(ctx, c, "bench", *n, *lists)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out["firstUse"] = first
	out["build"] = measure(*builds, func(int) error {
		// Built and used once, as a test does, so that nothing of it is left unmade.
		return fake.NewClientBuilder().Build().Create(ctx, configMap("default", 0))
	})
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		panic(err)
	}
}

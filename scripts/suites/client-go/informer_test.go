package clientgo

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// A shared informer whose connections are cut, and then refused for a while, while objects are
// made, changed and deleted: once the network is back its cache must equal the server's state,
// and its handlers must have seen every object's last version (client-go's reflector resumes the
// watch from its last resourceVersion, or relists).
func TestInformerReconnect(t *testing.T) {
	for _, mode := range []string{"watchlist", "list"} {
		for _, contentType := range []string{jsonType, protobufType} {
			name := mode + "/" + map[string]string{jsonType: "json", protobufType: "protobuf"}[contentType]
			t.Run(name, func(t *testing.T) { runInformerReconnect(t, mode, contentType) })
		}
	}
}

func runInformerReconnect(t *testing.T, mode, contentType string) {
	direct := clientset(t, restConfig(t, jsonType))
	ns := namespace(t, direct)
	proxied, proxy := throughProxy(t, restConfig(t, contentType))
	cs := clientset(t, proxied)

	var factory informers.SharedInformerFactory
	if mode == "watchlist" {
		factory = informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	} else {
		// The same informer over a ListWatch that declines streaming lists: LIST then WATCH.
		factory = informers.NewSharedInformerFactoryWithOptions(noWatchListClient{cs}, 0, informers.WithNamespace(ns))
	}
	inf := factory.Core().V1().ConfigMaps().Informer()
	var mu sync.Mutex
	lastSeen := map[string]string{} // name -> data["v"] of the last add/update; deleted names removed
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			cm := obj.(*corev1.ConfigMap)
			mu.Lock()
			lastSeen[cm.Name] = cm.Data["v"]
			mu.Unlock()
		},
		UpdateFunc: func(_, obj any) {
			cm := obj.(*corev1.ConfigMap)
			mu.Lock()
			lastSeen[cm.Name] = cm.Data["v"]
			mu.Unlock()
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			cm := obj.(*corev1.ConfigMap)
			mu.Lock()
			delete(lastSeen, cm.Name)
			mu.Unlock()
		},
	})
	must(t, err, "add handler")
	stop := make(chan struct{})
	defer func() {
		close(stop)
		factory.Shutdown()
	}()
	factory.Start(stop)
	if !cache.WaitForCacheSync(ctxTimeout(t, 30*time.Second).Done(), inf.HasSynced) {
		t.Fatalf("informer did not sync")
	}

	c := direct.CoreV1().ConfigMaps(ns)
	version := 0
	mutate := func(round int) {
		// Make two, change the one made the round before, delete the one made two rounds before.
		for i := 0; i < 2; i++ {
			version++
			_, err := c.Create(ctx(t), &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("r%d-%d", round, i)},
				Data:       map[string]string{"v": fmt.Sprint(version)},
			}, metav1.CreateOptions{})
			must(t, err, "create")
		}
		if round >= 1 {
			cm, err := c.Get(ctx(t), fmt.Sprintf("r%d-0", round-1), metav1.GetOptions{})
			must(t, err, "get")
			version++
			cm.Data["v"] = fmt.Sprint(version)
			_, err = c.Update(ctx(t), cm, metav1.UpdateOptions{})
			must(t, err, "update")
		}
		if round >= 2 {
			err := c.Delete(ctx(t), fmt.Sprintf("r%d-1", round-2), metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				t.Fatalf("delete: %v", err)
			}
		}
	}

	round := 0
	for cut := 0; cut < 3; cut++ {
		mutate(round)
		round++
		time.Sleep(300 * time.Millisecond)
		proxy.cut() // every connection of the informer's client drops at once
		mutate(round)
		round++
	}
	// The network goes away for 3 s (connections refused) while changes go on.
	proxy.down()
	mutate(round)
	round++
	time.Sleep(1500 * time.Millisecond)
	mutate(round)
	round++
	time.Sleep(1500 * time.Millisecond)
	proxy.up()
	mutate(round)

	eventually(t, 60*time.Second, "the informer caught up with the server", func() (bool, string) {
		list, err := c.List(ctx(t), metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		want := map[string]string{}
		for _, cm := range list.Items {
			want[cm.Name] = cm.ResourceVersion + "/" + cm.Data["v"]
		}
		got := map[string]string{}
		for _, o := range inf.GetStore().List() {
			cm := o.(*corev1.ConfigMap)
			got[cm.Name] = cm.ResourceVersion + "/" + cm.Data["v"]
		}
		mu.Lock()
		seen := map[string]string{}
		for k, v := range lastSeen {
			seen[k] = v
		}
		mu.Unlock()
		wantSeen := map[string]string{}
		for _, cm := range list.Items {
			wantSeen[cm.Name] = cm.Data["v"]
		}
		if fmt.Sprint(want) != fmt.Sprint(got) {
			return false, fmt.Sprintf("cache %s; server %s", mapString(got), mapString(want))
		}
		if fmt.Sprint(wantSeen) != fmt.Sprint(seen) {
			return false, fmt.Sprintf("handlers saw %s; server has %s", mapString(seen), mapString(wantSeen))
		}
		return true, ""
	})
}

// noWatchListClient is a clientset whose informers decline streaming lists.
type noWatchListClient struct{ kubernetes.Interface }

func (noWatchListClient) IsWatchListSemanticsUnSupported() bool { return true }

func mapString(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+m[k])
	}
	return "{" + strings.Join(parts, " ") + "}"
}

package clientgo

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// 410 Gone for a watch from a resourceVersion the server no longer keeps, and client-go's
// reflector relisting after it (api-concepts "Efficient detection of changes", "410 Gone
// responses"). Which versions a server keeps is its own affair: kube-apiserver's watch cache keeps
// each resource's newest events, all those of the last 75 s and at least 100, in a buffer that
// grows while its oldest event is younger than that. So a version becomes too old once it is
// more than 75 s old and enough writes have followed it to fill the buffer.
func TestWatchExpiry(t *testing.T) {
	cfg := restConfig(t, jsonType)
	cs := clientset(t, cfg)
	ns := namespace(t, cs)
	c := cs.CoreV1().ConfigMaps(ns)
	cm, err := c.Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "churn"}}, metav1.CreateOptions{})
	must(t, err, "create churn")
	tooOld := cm.ResourceVersion
	writes := 0
	churn := func(n int) {
		for i := 0; i < n; i++ {
			writes++
			patch := fmt.Sprintf(`{"data":{"n":"%d"}}`, writes)
			_, err := c.Patch(ctx(t), "churn", types.MergePatchType, []byte(patch), metav1.PatchOptions{})
			must(t, err, "patch churn")
		}
	}
	churn(150)
	time.Sleep(76 * time.Second)

	ok := t.Run("WatchFromEvictedResourceVersion", func(t *testing.T) {
		// Writes go on until the server answers 410, either as the response or as an ERROR event
		// on the stream; kube-apiserver does once the buffer has filled with newer events.
		var err error
		for writes < 5150 {
			churn(100)
			err = firstWatchError(t, c.Watch, metav1.ListOptions{ResourceVersion: tooOld})
			if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
				break
			}
		}
		if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
			t.Fatalf("watch from resourceVersion %s, 76 s and %d writes old: want 410 Expired/Gone, got %v", tooOld, writes, err)
		}
		if status, ok := err.(apierrors.APIStatus); !ok || status.Status().Code != 410 {
			t.Fatalf("watch from evicted resourceVersion %s: error %v has no 410 status", tooOld, err)
		}
		t.Logf("resourceVersion %s was answered 410 after 76 s and %d writes", tooOld, writes)
	})
	if !ok {
		t.Fatalf("no resourceVersion to expire: the reflector tests cannot run")
	}

	for _, mode := range []string{"list", "watchlist"} {
		t.Run("ReflectorRelistsAfterExpiry/"+mode, func(t *testing.T) {
			ns := namespace(t, cs)
			c := cs.CoreV1().ConfigMaps(ns)
			for i := 0; i < 3; i++ {
				_, err := c.Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("before-%d", i)}}, metav1.CreateOptions{})
				must(t, err, "create")
			}
			lw := newCountingListWatch(c, mode == "list", tooOld)
			inf := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
			stop := make(chan struct{})
			defer close(stop)
			go inf.Run(stop)
			if !cache.WaitForCacheSync(ctxTimeout(t, 30*time.Second).Done(), inf.HasSynced) {
				t.Fatalf("informer did not sync: %s", lw.summary())
			}

			// The next watch the reflector opens asks for the evicted version: the server answers
			// 410, and the reflector must get the state again (a LIST, or a streaming list) and go on.
			// (A watch that ends within a second of opening, with no event, makes the reflector
			// relist anyway: let it age first.)
			time.Sleep(1500 * time.Millisecond)
			lw.expireNextWatch.Store(true)
			lw.endCurrentWatch()
			for i := 0; i < 3; i++ {
				_, err := c.Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("after-%d", i)}}, metav1.CreateOptions{})
				must(t, err, "create")
			}
			eventually(t, 30*time.Second, "relisted after 410", func() (bool, string) {
				return lw.expired.Load() && storeNames(inf.GetStore()) == "after-0,after-1,after-2,before-0,before-1,before-2",
					fmt.Sprintf("store %s; %s", storeNames(inf.GetStore()), lw.summary())
			})
			if mode == "list" && lw.listsAfter.Load() == 0 {
				t.Fatalf("the reflector did not LIST again after 410: %s", lw.summary())
			}
			if mode == "watchlist" && (lw.streamsAfter.Load() == 0 || lw.lists.Load() != 0) {
				t.Fatalf("the reflector did not stream a list again after 410 (or fell back to LIST): %s", lw.summary())
			}
		})
	}
}

// Streaming lists (api-concepts "Streaming lists"; client-go's WatchListClient, on by default
// since 1.35): a watch with sendInitialEvents=true sends the current objects as ADDED events and
// then a BOOKMARK annotated k8s.io/initial-events-end, and informers sync that way without a LIST.
func TestWatchList(t *testing.T) {
	cfg := restConfig(t, jsonType)
	requests := recordRequests(cfg)
	cs := clientset(t, cfg)

	t.Run("InitialEventsThenBookmark", func(t *testing.T) {
		ns := namespace(t, cs)
		c := cs.CoreV1().ConfigMaps(ns)
		for i := 0; i < 5; i++ {
			_, err := c.Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("init-%d", i)}}, metav1.CreateOptions{})
			must(t, err, "create")
		}
		w, err := c.Watch(ctx(t), metav1.ListOptions{
			SendInitialEvents:    ptr.To(true),
			ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
			AllowWatchBookmarks:  true,
		})
		must(t, err, "watch with sendInitialEvents")
		defer w.Stop()
		var added []string
		bookmarkRV := ""
		for bookmarkRV == "" {
			select {
			case ev, ok := <-w.ResultChan():
				if !ok {
					t.Fatalf("stream closed before the initial-events-end bookmark; added %v", added)
				}
				switch ev.Type {
				case watch.Added:
					added = append(added, ev.Object.(*corev1.ConfigMap).Name)
				case watch.Bookmark:
					m, err := meta.Accessor(ev.Object)
					must(t, err, "bookmark object")
					if m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
						bookmarkRV = m.GetResourceVersion()
						if bookmarkRV == "" {
							t.Fatalf("initial-events-end bookmark has no resourceVersion")
						}
					}
				default:
					t.Fatalf("unexpected %s event before the initial-events-end bookmark: %v", ev.Type, ev.Object)
				}
			case <-time.After(15 * time.Second):
				t.Fatalf("no initial-events-end bookmark within 15s; added %v", added)
			}
		}
		sort.Strings(added)
		if strings.Join(added, ",") != "init-0,init-1,init-2,init-3,init-4" {
			t.Fatalf("initial events: %v", added)
		}
		// The stream goes on as a watch.
		_, err = c.Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "init-late"}}, metav1.CreateOptions{})
		must(t, err, "create late")
		waitForEvent(t, w, watch.Added, "init-late")

		// The state at the bookmark's resourceVersion, listed exactly, is what was streamed.
		list, err := c.List(ctx(t), metav1.ListOptions{ResourceVersion: bookmarkRV, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
		must(t, err, "list at the bookmark's resourceVersion %s", bookmarkRV)
		if names := itemNames(list.Items); strings.Join(names, ",") != strings.Join(added, ",") {
			t.Fatalf("list at %s (Exact): %v; streamed %v", bookmarkRV, names, added)
		}
	})

	t.Run("InformerSyncsWithoutList", func(t *testing.T) {
		ns := namespace(t, cs)
		c := cs.CoreV1().ConfigMaps(ns)
		for i := 0; i < 20; i++ {
			_, err := c.Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("inf-%02d", i)}}, metav1.CreateOptions{})
			must(t, err, "create")
		}
		before := requests.count(func(r request) bool { return r.path == "/api/v1/namespaces/"+ns+"/configmaps" })
		lw := cache.NewListWatchFromClient(cs.CoreV1().RESTClient(), "configmaps", ns, fields.Everything())
		inf := cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(lw, cs), &corev1.ConfigMap{}, 0, cache.Indexers{})
		stop := make(chan struct{})
		defer close(stop)
		go inf.Run(stop)
		if !cache.WaitForCacheSync(ctxTimeout(t, 30*time.Second).Done(), inf.HasSynced) {
			t.Fatalf("informer did not sync")
		}
		if n := len(inf.GetStore().List()); n != 20 {
			t.Fatalf("informer store has %d objects, want 20", n)
		}
		var lists, streams int
		for _, r := range requests.since(before, func(r request) bool { return r.path == "/api/v1/namespaces/"+ns+"/configmaps" }) {
			switch {
			case r.query.Get("watch") == "true" && r.query.Get("sendInitialEvents") == "true":
				streams++
			case r.query.Get("watch") == "":
				lists++
			}
		}
		if streams == 0 || lists != 0 {
			t.Fatalf("informer synced with %d LIST and %d streaming-list requests; want 0 and at least 1 (did the server refuse the streaming list?)", lists, streams)
		}
	})
}

// firstWatchError opens a watch and returns the error it ends with: the request's own, or the
// first ERROR event's Status.
func firstWatchError(t *testing.T, open func(context.Context, metav1.ListOptions) (watch.Interface, error), opts metav1.ListOptions) error {
	t.Helper()
	w, err := open(ctx(t), opts)
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return fmt.Errorf("watch closed without an error")
			}
			if ev.Type == watch.Error {
				return apierrors.FromObject(ev.Object)
			}
			// Any other event means the server replayed history it still has.
			m, _ := meta.Accessor(ev.Object)
			name := ""
			if m != nil {
				name = m.GetName()
			}
			return fmt.Errorf("got a %s event (%s) instead of an error", ev.Type, name)
		case <-time.After(15 * time.Second):
			return fmt.Errorf("no event within 15s")
		}
	}
}

func waitForEvent(t *testing.T, w watch.Interface, typ watch.EventType, name string) {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed before %s %s", typ, name)
			}
			if m, err := meta.Accessor(ev.Object); err == nil && ev.Type == typ && m.GetName() == name {
				return
			}
		case <-timeout:
			t.Fatalf("no %s %s event within 15s", typ, name)
		}
	}
}

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	c, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return c
}

func storeNames(s cache.Store) string {
	var names []string
	for _, o := range s.List() {
		names = append(names, o.(*corev1.ConfigMap).Name)
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

// countingListWatch lists and watches ConfigMaps through a typed client, counting LISTs, streaming
// lists and watches; it can end the watch in use, and make the next watch ask for an evicted
// resourceVersion.
type countingListWatch struct {
	c                       configMapClient
	noWatchList             bool
	tooOld                  string
	lists, streams, watches atomic.Int32
	// LISTs and streaming lists after the watch sent with the evicted resourceVersion
	listsAfter, streamsAfter atomic.Int32
	expireNextWatch, expired atomic.Bool
	mu                       sync.Mutex
	current                  watch.Interface
	log                      []string
}

type configMapClient interface {
	List(context.Context, metav1.ListOptions) (*corev1.ConfigMapList, error)
	Watch(context.Context, metav1.ListOptions) (watch.Interface, error)
}

func newCountingListWatch(c configMapClient, noWatchList bool, tooOld string) *countingListWatch {
	return &countingListWatch{c: c, noWatchList: noWatchList, tooOld: tooOld}
}

func (l *countingListWatch) List(opts metav1.ListOptions) (runtime.Object, error) {
	return l.ListWithContext(context.Background(), opts)
}

func (l *countingListWatch) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	l.lists.Add(1)
	if l.expired.Load() {
		l.listsAfter.Add(1)
	}
	l.note("LIST rv=%q", opts.ResourceVersion)
	return l.c.List(ctx, opts)
}

func (l *countingListWatch) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return l.WatchWithContext(context.Background(), opts)
}

func (l *countingListWatch) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		l.streams.Add(1)
		if l.expired.Load() {
			l.streamsAfter.Add(1)
		}
	} else {
		l.watches.Add(1)
		if l.expireNextWatch.CompareAndSwap(true, false) {
			l.note("WATCH rv=%q, sent as rv=%q", opts.ResourceVersion, l.tooOld)
			opts.ResourceVersion = l.tooOld
			l.expired.Store(true)
		}
	}
	l.note("WATCH rv=%q sendInitialEvents=%v", opts.ResourceVersion, opts.SendInitialEvents != nil && *opts.SendInitialEvents)
	inner, err := l.c.Watch(ctx, opts)
	if err != nil {
		l.note("  -> %v", err)
		return nil, err
	}
	w := newEndableWatch(inner)
	l.mu.Lock()
	l.current = w
	l.mu.Unlock()
	return w, nil
}

// endableWatch passes a watch's events on, and can end it as a server ends a watch whose timeout
// ran out: the result channel closes with no error event. (Stopping client-go's own watcher from
// outside may deliver a decode error first, and the reflector then relists instead of watching.)
type endableWatch struct {
	inner watch.Interface
	ch    chan watch.Event
	done  chan struct{}
	once  sync.Once
}

func newEndableWatch(inner watch.Interface) *endableWatch {
	w := &endableWatch{inner: inner, ch: make(chan watch.Event), done: make(chan struct{})}
	go func() {
		defer close(w.ch)
		defer inner.Stop()
		for {
			select {
			case ev, ok := <-inner.ResultChan():
				if !ok {
					return
				}
				select {
				case w.ch <- ev:
				case <-w.done:
					return
				}
			case <-w.done:
				return
			}
		}
	}()
	return w
}

func (w *endableWatch) ResultChan() <-chan watch.Event { return w.ch }
func (w *endableWatch) Stop()                          { w.once.Do(func() { close(w.done) }) }

// endCurrentWatch ends the watch in use as a server would end it.
func (l *countingListWatch) endCurrentWatch() {
	l.mu.Lock()
	w := l.current
	l.mu.Unlock()
	if w != nil {
		w.Stop()
	}
}

// IsWatchListSemanticsUnSupported tells the reflector whether to use streaming lists.
func (l *countingListWatch) IsWatchListSemanticsUnSupported() bool { return l.noWatchList }

func (l *countingListWatch) note(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.log = append(l.log, fmt.Sprintf(format, args...))
}

func (l *countingListWatch) summary() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return fmt.Sprintf("%d lists, %d streaming lists, %d watches: %s", l.lists.Load(), l.streams.Load(), l.watches.Load(), strings.Join(l.log, "; "))
}

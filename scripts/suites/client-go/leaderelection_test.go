package clientgo

import (
	"context"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

const (
	leaseDuration = 4 * time.Second
	renewDeadline = 2 * time.Second
	retryPeriod   = 500 * time.Millisecond
)

// Leader election with a coordination.k8s.io Lease between two electors: one leads at a time, a
// leader that releases on cancel hands over at once, and one cut off from the server stops
// leading within its renew deadline and is replaced once its lease has run out.
func TestLeaderElection(t *testing.T) {
	cs := clientset(t, restConfig(t, protobufType))
	ns := namespace(t, cs)

	t.Run("ReleaseOnCancelHandsOver", func(t *testing.T) {
		a := startElector(t, cs, ns, "handover", "a", true)
		eventually(t, 10*time.Second, "a leading", func() (bool, string) { return a.leading(), a.state() })
		b := startElector(t, cs, ns, "handover", "b", true)
		time.Sleep(leaseDuration + time.Second)
		if b.leading() || !a.leading() {
			t.Fatalf("while a renews: a %s, b %s", a.state(), b.state())
		}
		lease, err := cs.CoordinationV1().Leases(ns).Get(ctx(t), "handover", metav1.GetOptions{})
		must(t, err, "get lease")
		if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity != "a" {
			t.Fatalf("lease holder %v, want a", lease.Spec.HolderIdentity)
		}
		transitions := int32(0)
		if lease.Spec.LeaseTransitions != nil {
			transitions = *lease.Spec.LeaseTransitions
		}

		start := time.Now()
		a.cancel() // releases: the lease is emptied, b need not wait for it to expire
		eventually(t, 10*time.Second, "b leading", func() (bool, string) { return b.leading(), b.state() })
		if took := time.Since(start); took > leaseDuration {
			t.Fatalf("b took %s to lead after a released (lease duration %s): the release did not reach the lease", took, leaseDuration)
		}
		if a.leading() {
			t.Fatalf("a still leading after cancel")
		}
		lease, err = cs.CoordinationV1().Leases(ns).Get(ctx(t), "handover", metav1.GetOptions{})
		must(t, err, "get lease")
		if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity != "b" {
			t.Fatalf("lease holder %v, want b", lease.Spec.HolderIdentity)
		}
		if lease.Spec.LeaseTransitions == nil || *lease.Spec.LeaseTransitions <= transitions {
			t.Fatalf("leaseTransitions %v did not grow from %d", lease.Spec.LeaseTransitions, transitions)
		}
		b.cancel()
	})

	t.Run("CutOffLeaderIsReplaced", func(t *testing.T) {
		proxied, proxy := throughProxy(t, restConfig(t, protobufType))
		a := startElector(t, clientset(t, proxied), ns, "cutoff", "a", false)
		eventually(t, 10*time.Second, "a leading", func() (bool, string) { return a.leading(), a.state() })
		b := startElector(t, cs, ns, "cutoff", "b", false)
		time.Sleep(time.Second)

		start := time.Now()
		proxy.down() // a can no longer renew
		eventually(t, renewDeadline+3*time.Second, "a stopped leading", func() (bool, string) { return a.stopped(), a.state() })
		eventually(t, leaseDuration+5*time.Second, "b leading", func() (bool, string) { return b.leading(), b.state() })
		if took := time.Since(start); took < leaseDuration-time.Second {
			t.Fatalf("b led %s after a was cut off, before a's %s lease ran out", took, leaseDuration)
		}
		b.cancel()
	})
}

type elector struct {
	mu                 sync.Mutex
	started, stoppedAt bool
	leader             string
	cancel             context.CancelFunc
	done               chan struct{}
}

func (e *elector) leading() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.started && !e.stoppedAt
}

func (e *elector) stopped() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stoppedAt
}

func (e *elector) state() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return "started=" + boolString(e.started) + " stopped=" + boolString(e.stoppedAt) + " observed leader=" + e.leader
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func startElector(t *testing.T, cs kubernetes.Interface, ns, lease, id string, releaseOnCancel bool) *elector {
	t.Helper()
	e := &elector{done: make(chan struct{})}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: ns, Name: lease},
		Client:     cs.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   leaseDuration,
		RenewDeadline:   renewDeadline,
		RetryPeriod:     retryPeriod,
		ReleaseOnCancel: releaseOnCancel,
		Name:            lease + "/" + id,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) {
				e.mu.Lock()
				e.started = true
				e.mu.Unlock()
			},
			OnStoppedLeading: func() {
				e.mu.Lock()
				if e.started {
					e.stoppedAt = true
				}
				e.mu.Unlock()
			},
			OnNewLeader: func(identity string) {
				e.mu.Lock()
				e.leader = identity
				e.mu.Unlock()
			},
		},
	})
	must(t, err, "leader elector %s", id)
	c, cancel := context.WithCancel(context.Background())
	e.cancel = func() {
		cancel()
		select {
		case <-e.done:
		case <-time.After(10 * time.Second):
			t.Errorf("elector %s did not return within 10s of cancel", id)
		}
	}
	t.Cleanup(cancel)
	go func() {
		defer close(e.done)
		le.Run(c)
	}()
	return e
}

package clientgo

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/tools/pager"
	"k8s.io/utils/ptr"
)

// The same create, read, update, patch, delete, list and watch, in JSON and in protobuf.
func TestCRUDJSON(t *testing.T)     { runCRUD(t, jsonType) }
func TestCRUDProtobuf(t *testing.T) { runCRUD(t, protobufType) }

func runCRUD(t *testing.T, contentType string) {
	cfg := restConfig(t, contentType)
	seen := recordRequests(cfg)
	cs := clientset(t, cfg)
	ns := namespace(t, cs)

	// A client asking for protobuf gets protobuf for built-in kinds (the server's content
	// negotiation, api-concepts "Alternate representations of resources").
	wantType := func(t *testing.T, key string) {
		t.Helper()
		got := seen.contentTypes(key)
		if len(got) == 0 {
			t.Fatalf("no response recorded for %s", key)
		}
		for _, ct := range got {
			mediaType := strings.TrimSpace(strings.Split(ct, ";")[0])
			if mediaType != contentType {
				t.Fatalf("%s answered Content-Type %q, want %s", key, ct, contentType)
			}
		}
	}

	t.Run("ConfigMapLifecycle", func(t *testing.T) {
		c := cs.CoreV1().ConfigMaps(ns)
		cm, err := c.Create(ctx(t), &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "life", Labels: map[string]string{"app": "crud"}},
			Data:       map[string]string{"a": "1"},
			BinaryData: map[string][]byte{"bin": {0, 1, 2, 255}},
		}, metav1.CreateOptions{})
		must(t, err, "create")
		if cm.UID == "" || cm.ResourceVersion == "" || cm.CreationTimestamp.IsZero() {
			t.Fatalf("created object lacks uid, resourceVersion or creationTimestamp: %+v", cm.ObjectMeta)
		}
		wantType(t, "POST /api/v1/namespaces/"+ns+"/configmaps")

		got, err := c.Get(ctx(t), "life", metav1.GetOptions{})
		must(t, err, "get")
		if got.Data["a"] != "1" || !bytes.Equal(got.BinaryData["bin"], []byte{0, 1, 2, 255}) {
			t.Fatalf("get returned %v %v", got.Data, got.BinaryData)
		}
		wantType(t, "GET /api/v1/namespaces/"+ns+"/configmaps/life")

		got.Data["a"] = "2"
		upd, err := c.Update(ctx(t), got, metav1.UpdateOptions{})
		must(t, err, "update")
		if upd.ResourceVersion == got.ResourceVersion || upd.Data["a"] != "2" {
			t.Fatalf("update: resourceVersion %s -> %s, data %v", got.ResourceVersion, upd.ResourceVersion, upd.Data)
		}

		// An update carrying an old resourceVersion is refused with 409 Conflict.
		got.Data["a"] = "3"
		_, err = c.Update(ctx(t), got, metav1.UpdateOptions{})
		if !apierrors.IsConflict(err) {
			t.Fatalf("stale update: want Conflict, got %v", err)
		}

		// Creating a name that exists is 409 AlreadyExists.
		_, err = c.Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "life"}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			t.Fatalf("second create: want AlreadyExists, got %v", err)
		}

		// A delete whose UID precondition does not match is 409 Conflict, and deletes nothing.
		err = c.Delete(ctx(t), "life", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptr.To(types.UID("not-the-uid"))}})
		if !apierrors.IsConflict(err) {
			t.Fatalf("delete with wrong uid precondition: want Conflict, got %v", err)
		}
		must(t, c.Delete(ctx(t), "life", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &cm.UID}}), "delete")
		_, err = c.Get(ctx(t), "life", metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			t.Fatalf("get after delete: want NotFound, got %v", err)
		}
		// The error's Status is decoded whole, in either content type.
		var status apierrors.APIStatus
		if s, ok := err.(apierrors.APIStatus); ok {
			status = s
		}
		if status == nil || status.Status().Code != 404 || status.Status().Details == nil || status.Status().Details.Name != "life" {
			t.Fatalf("NotFound status: %#v", err)
		}
	})

	t.Run("Patches", func(t *testing.T) {
		d := cs.AppsV1().Deployments(ns)
		_, err := d.Create(ctx(t), deployment("patched", 1), metav1.CreateOptions{})
		must(t, err, "create deployment")

		// Strategic merge: containers merge by name, so a new container is added beside the old.
		smp := `{"spec":{"template":{"spec":{"containers":[{"name":"side","image":"busybox"}]}}}}`
		got, err := d.Patch(ctx(t), "patched", types.StrategicMergePatchType, []byte(smp), metav1.PatchOptions{})
		must(t, err, "strategic merge patch")
		if names := containerNames(got); strings.Join(names, ",") != "main,side" {
			t.Fatalf("strategic merge patch: containers %v, want main and side", names)
		}

		// JSON merge patch: a list is replaced whole.
		jmp := `{"metadata":{"labels":{"merged":"yes"}},"spec":{"template":{"spec":{"containers":[{"name":"only","image":"busybox"}]}}}}`
		got, err = d.Patch(ctx(t), "patched", types.MergePatchType, []byte(jmp), metav1.PatchOptions{})
		must(t, err, "json merge patch")
		if names := containerNames(got); strings.Join(names, ",") != "only" || got.Labels["merged"] != "yes" {
			t.Fatalf("json merge patch: containers %v labels %v", names, got.Labels)
		}

		// JSON patch, with a failing test operation refused as a whole (422).
		jp := `[{"op":"replace","path":"/spec/replicas","value":3}]`
		got, err = d.Patch(ctx(t), "patched", types.JSONPatchType, []byte(jp), metav1.PatchOptions{})
		must(t, err, "json patch")
		if *got.Spec.Replicas != 3 {
			t.Fatalf("json patch: replicas %d", *got.Spec.Replicas)
		}
		bad := `[{"op":"test","path":"/spec/replicas","value":7},{"op":"replace","path":"/spec/replicas","value":9}]`
		_, err = d.Patch(ctx(t), "patched", types.JSONPatchType, []byte(bad), metav1.PatchOptions{})
		if err == nil {
			t.Fatalf("json patch with a failing test op succeeded")
		}
		got, err = d.Get(ctx(t), "patched", metav1.GetOptions{})
		must(t, err, "get")
		if *got.Spec.Replicas != 3 {
			t.Fatalf("a refused json patch changed replicas to %d", *got.Spec.Replicas)
		}

		// Patching an object that does not exist is 404.
		_, err = d.Patch(ctx(t), "absent", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})
		if !apierrors.IsNotFound(err) {
			t.Fatalf("patch of a missing object: want NotFound, got %v", err)
		}
	})

	t.Run("ServerSideApply", func(t *testing.T) {
		c := cs.CoreV1().ConfigMaps(ns)
		first := corev1ac.ConfigMap("applied", ns).WithData(map[string]string{"owned": "a", "shared": "x"})
		got, err := c.Apply(ctx(t), first, metav1.ApplyOptions{FieldManager: "alpha"})
		must(t, err, "apply (create)")
		if got.Data["owned"] != "a" {
			t.Fatalf("apply created %v", got.Data)
		}
		managers := map[string]bool{}
		for _, mf := range got.ManagedFields {
			managers[mf.Manager] = mf.Operation == metav1.ManagedFieldsOperationApply
		}
		if !managers["alpha"] {
			t.Fatalf("managedFields lack an Apply entry for alpha: %+v", got.ManagedFields)
		}
		// Another manager setting a field alpha owns to another value conflicts (409)...
		second := corev1ac.ConfigMap("applied", ns).WithData(map[string]string{"shared": "y"})
		_, err = c.Apply(ctx(t), second, metav1.ApplyOptions{FieldManager: "beta"})
		if !apierrors.IsConflict(err) {
			t.Fatalf("conflicting apply: want Conflict, got %v", err)
		}
		// ...unless it forces, and then it owns the field.
		got, err = c.Apply(ctx(t), second, metav1.ApplyOptions{FieldManager: "beta", Force: true})
		must(t, err, "forced apply")
		if got.Data["shared"] != "y" || got.Data["owned"] != "a" {
			t.Fatalf("forced apply: %v", got.Data)
		}
		// alpha applying without "owned" removes the field it alone managed.
		got, err = c.Apply(ctx(t), corev1ac.ConfigMap("applied", ns).WithData(map[string]string{}), metav1.ApplyOptions{FieldManager: "alpha"})
		must(t, err, "apply dropping a field")
		if _, ok := got.Data["owned"]; ok || got.Data["shared"] != "y" {
			t.Fatalf("after alpha dropped owned: %v", got.Data)
		}

		// Apply of a typed Deployment through the apps client.
		dep := appsv1ac.Deployment("applied", ns).WithSpec(appsv1ac.DeploymentSpec().
			WithReplicas(2).
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{"app": "applied"})).
			WithTemplate(corev1ac.PodTemplateSpec().
				WithLabels(map[string]string{"app": "applied"}).
				WithSpec(corev1ac.PodSpec().WithContainers(corev1ac.Container().WithName("main").WithImage("busybox")))))
		gotDep, err := cs.AppsV1().Deployments(ns).Apply(ctx(t), dep, metav1.ApplyOptions{FieldManager: "alpha"})
		must(t, err, "apply deployment")
		if *gotDep.Spec.Replicas != 2 {
			t.Fatalf("applied deployment has replicas %d", *gotDep.Spec.Replicas)
		}
	})

	t.Run("StatusAndScale", func(t *testing.T) {
		d := cs.AppsV1().Deployments(ns)
		created, err := d.Create(ctx(t), deployment("scaled", 1), metav1.CreateOptions{})
		must(t, err, "create")

		// The status subresource changes status and ignores spec.
		created.Status.ObservedGeneration = 1
		created.Status.Replicas = 1
		created.Spec.Replicas = ptr.To[int32](5)
		st, err := d.UpdateStatus(ctx(t), created, metav1.UpdateOptions{})
		must(t, err, "update status")
		if st.Status.Replicas != 1 || *st.Spec.Replicas != 1 {
			t.Fatalf("status update: status.replicas %d (want 1), spec.replicas %d (want 1)", st.Status.Replicas, *st.Spec.Replicas)
		}
		// The main resource ignores status.
		st.Status.Replicas = 4
		st.Labels = map[string]string{"touched": "yes"}
		upd, err := d.Update(ctx(t), st, metav1.UpdateOptions{})
		must(t, err, "update")
		if upd.Status.Replicas != 1 || upd.Labels["touched"] != "yes" {
			t.Fatalf("main update: status.replicas %d (want 1), labels %v", upd.Status.Replicas, upd.Labels)
		}

		// The scale subresource reads and writes spec.replicas as an autoscaling/v1 Scale.
		scale, err := d.GetScale(ctx(t), "scaled", metav1.GetOptions{})
		must(t, err, "get scale")
		if scale.Spec.Replicas != 1 || scale.Name != "scaled" {
			t.Fatalf("scale: %+v", scale)
		}
		scale.Spec.Replicas = 4
		_, err = d.UpdateScale(ctx(t), "scaled", &autoscalingv1.Scale{ObjectMeta: scale.ObjectMeta, Spec: scale.Spec}, metav1.UpdateOptions{})
		must(t, err, "update scale")
		got, err := d.Get(ctx(t), "scaled", metav1.GetOptions{})
		must(t, err, "get")
		if *got.Spec.Replicas != 4 {
			t.Fatalf("after scale update spec.replicas = %d, want 4", *got.Spec.Replicas)
		}
	})

	t.Run("ListSelectors", func(t *testing.T) {
		c := cs.CoreV1().ConfigMaps(ns)
		for i := 0; i < 6; i++ {
			tier := "front"
			if i%2 == 1 {
				tier = "back"
			}
			_, err := c.Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("sel-%d", i), Labels: map[string]string{"tier": tier, "set": "sel"},
			}}, metav1.CreateOptions{})
			must(t, err, "create sel-%d", i)
		}
		list, err := c.List(ctx(t), metav1.ListOptions{LabelSelector: "set=sel,tier=back"})
		must(t, err, "list by label")
		if names := itemNames(list.Items); strings.Join(names, ",") != "sel-1,sel-3,sel-5" {
			t.Fatalf("label selector tier=back: %v", names)
		}
		if list.ResourceVersion == "" {
			t.Fatalf("list has no resourceVersion")
		}
		wantType(t, "GET /api/v1/namespaces/"+ns+"/configmaps")
		list, err = c.List(ctx(t), metav1.ListOptions{LabelSelector: "set in (sel),tier notin (back)"})
		must(t, err, "list by set selector")
		if names := itemNames(list.Items); strings.Join(names, ",") != "sel-0,sel-2,sel-4" {
			t.Fatalf("set-based selector: %v", names)
		}
		list, err = c.List(ctx(t), metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "sel-4").String()})
		must(t, err, "list by field")
		if names := itemNames(list.Items); strings.Join(names, ",") != "sel-4" {
			t.Fatalf("field selector metadata.name=sel-4: %v", names)
		}
		// DeleteCollection with a selector removes exactly the selected objects.
		must(t, c.DeleteCollection(ctx(t), metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "tier=front"}), "delete collection")
		list, err = c.List(ctx(t), metav1.ListOptions{LabelSelector: "set=sel"})
		must(t, err, "list after delete collection")
		if names := itemNames(list.Items); strings.Join(names, ",") != "sel-1,sel-3,sel-5" {
			t.Fatalf("after deleting tier=front: %v", names)
		}
	})

	t.Run("ListChunking", func(t *testing.T) {
		// A namespace of its own, listed without selectors: remainingItemCount is only known then.
		c := cs.CoreV1().ConfigMaps(namespace(t, cs))
		const total = 25
		for i := 0; i < total; i++ {
			_, err := c.Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("chunk-%02d", i), Labels: map[string]string{"set": "chunk"},
			}}, metav1.CreateOptions{})
			must(t, err, "create chunk-%02d", i)
		}
		// Pages of at most 10 joined by continue tokens; each page but the last has a token,
		// all pages share the first page's resourceVersion (a consistent snapshot).
		var names []string
		opts := metav1.ListOptions{Limit: 10}
		pages := 0
		firstRV := ""
		for {
			list, err := c.List(ctx(t), opts)
			must(t, err, "list page %d", pages)
			pages++
			if len(list.Items) > 10 {
				t.Fatalf("page %d has %d items, limit 10", pages, len(list.Items))
			}
			if firstRV == "" {
				firstRV = list.ResourceVersion
			} else if list.ResourceVersion != firstRV {
				t.Fatalf("page %d resourceVersion %s, first page's %s", pages, list.ResourceVersion, firstRV)
			}
			names = append(names, itemNames(list.Items)...)
			if list.Continue == "" {
				break
			}
			if list.RemainingItemCount != nil && *list.RemainingItemCount != int64(total-len(names)) {
				t.Fatalf("page %d: remainingItemCount %d, want %d", pages, *list.RemainingItemCount, total-len(names))
			}
			if pages == 1 {
				// Objects made after the first page are not in the later pages.
				_, err := c.Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
					Name: "chunk-zz-late", Labels: map[string]string{"set": "chunk"},
				}}, metav1.CreateOptions{})
				must(t, err, "create late")
			}
			opts.Continue = list.Continue
		}
		if pages != 3 || len(names) != total {
			t.Fatalf("%d pages holding %d names (want 3 pages, %d names): %v", pages, len(names), total, names)
		}
		sort.Strings(names)
		for i, n := range names {
			if n != fmt.Sprintf("chunk-%02d", i) {
				t.Fatalf("chunked list has duplicates or misses: %v", names)
			}
		}
		// A malformed continue token is 400 BadRequest.
		_, err := c.List(ctx(t), metav1.ListOptions{Limit: 10, Continue: "not-a-token"})
		if !apierrors.IsBadRequest(err) {
			t.Fatalf("bad continue token: want BadRequest, got %v", err)
		}
		// client-go's pager walks every page.
		p := pager.New(func(ctx2 context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return c.List(ctx2, o)
		})
		p.PageSize = 4
		count := 0
		err = p.EachListItem(ctx(t), metav1.ListOptions{}, func(runtime.Object) error {
			count++
			return nil
		})
		must(t, err, "pager")
		if count != total+1 {
			t.Fatalf("pager saw %d items, want %d", count, total+1)
		}
	})

	t.Run("Watch", func(t *testing.T) {
		c := cs.CoreV1().ConfigMaps(ns)
		list, err := c.List(ctx(t), metav1.ListOptions{LabelSelector: "set=watch"})
		must(t, err, "list")
		w, err := c.Watch(ctx(t), metav1.ListOptions{LabelSelector: "set=watch", ResourceVersion: list.ResourceVersion})
		must(t, err, "watch")
		defer w.Stop()

		cm, err := c.Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "watched", Labels: map[string]string{"set": "watch"}}}, metav1.CreateOptions{})
		must(t, err, "create")
		cm.Data = map[string]string{"k": "v"}
		cm, err = c.Update(ctx(t), cm, metav1.UpdateOptions{})
		must(t, err, "update")
		must(t, c.Delete(ctx(t), "watched", metav1.DeleteOptions{}), "delete")

		want := []watch.EventType{watch.Added, watch.Modified, watch.Deleted}
		var lastRV string
		for i, wt := range want {
			select {
			case ev, ok := <-w.ResultChan():
				if !ok {
					t.Fatalf("watch closed after %d events", i)
				}
				obj, isCM := ev.Object.(*corev1.ConfigMap)
				if ev.Type != wt || !isCM || obj.Name != "watched" {
					t.Fatalf("event %d: %s %T, want %s ConfigMap watched", i, ev.Type, ev.Object, wt)
				}
				if wt == watch.Modified && obj.Data["k"] != "v" {
					t.Fatalf("MODIFIED event carries %v", obj.Data)
				}
				if obj.ResourceVersion == "" || obj.ResourceVersion == lastRV {
					t.Fatalf("event %d has resourceVersion %q after %q", i, obj.ResourceVersion, lastRV)
				}
				lastRV = obj.ResourceVersion
			case <-time.After(15 * time.Second):
				t.Fatalf("no %s event within 15s", wt)
			}
		}
		w.Stop()
		wantType(t, "WATCH /api/v1/namespaces/"+ns+"/configmaps")
		_ = cm
	})
}

func deployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}},
			},
		},
	}
}

func containerNames(d *appsv1.Deployment) []string {
	var out []string
	for _, c := range d.Spec.Template.Spec.Containers {
		out = append(out, c.Name)
	}
	sort.Strings(out) // the merged list's order is not specified
	return out
}

func itemNames(items []corev1.ConfigMap) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.Name)
	}
	sort.Strings(out)
	return out
}

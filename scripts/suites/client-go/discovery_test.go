package clientgo

import (
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"
)

// Discovery as client-go does it: aggregated discovery (apidiscovery.k8s.io/v2) first, the
// version, the OpenAPI v3 index, and a RESTMapper built from discovery.
func TestDiscovery(t *testing.T) {
	cfg := restConfig(t, jsonType)
	requests := recordRequests(cfg)
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	must(t, err, "discovery client")

	t.Run("ServerVersion", func(t *testing.T) {
		v, err := dc.ServerVersion()
		must(t, err, "version")
		if !strings.HasPrefix(v.GitVersion, "v1.") || v.Major != "1" || v.Minor == "" {
			t.Fatalf("version %+v", v)
		}
	})

	t.Run("AggregatedGroupsAndResources", func(t *testing.T) {
		groups, resources, err := dc.ServerGroupsAndResources()
		must(t, err, "groups and resources")
		names := map[string]bool{}
		for _, g := range groups {
			names[g.Name] = true
		}
		for _, want := range []string{"", "apps", "coordination.k8s.io", "apiextensions.k8s.io", "rbac.authorization.k8s.io"} {
			if !names[want] {
				t.Fatalf("group %q not discovered", want)
			}
		}
		verbs := map[string]string{}
		for _, rl := range resources {
			for _, r := range rl.APIResources {
				v := append([]string(nil), r.Verbs...)
				sort.Strings(v)
				verbs[rl.GroupVersion+"/"+r.Name] = strings.Join(v, ",")
			}
		}
		for res, want := range map[string]string{
			"v1/configmaps":             "create,delete,deletecollection,get,list,patch,update,watch",
			"apps/v1/deployments":       "create,delete,deletecollection,get,list,patch,update,watch",
			"apps/v1/deployments/scale": "get,patch,update",
			"v1/namespaces":             "create,delete,get,list,patch,update,watch",
		} {
			if verbs[res] != want {
				t.Fatalf("%s verbs %q, want %q", res, verbs[res], want)
			}
		}
		// client-go asked for the aggregated form and the server gave it.
		var aggregated bool
		for _, ct := range append(requests.contentTypes("GET /api"), requests.contentTypes("GET /apis")...) {
			if strings.Contains(ct, "g=apidiscovery.k8s.io") && strings.Contains(ct, "v=v2") {
				aggregated = true
			}
		}
		if !aggregated {
			t.Fatalf("/api and /apis were not answered as apidiscovery.k8s.io/v2: %v %v", requests.contentTypes("GET /api"), requests.contentTypes("GET /apis"))
		}
	})

	t.Run("PreferredResources", func(t *testing.T) {
		lists, err := dc.ServerPreferredResources()
		must(t, err, "preferred resources")
		found := false
		for _, l := range lists {
			if l.GroupVersion == "apps/v1" {
				for _, r := range l.APIResources {
					if r.Name == "deployments" && r.Kind == "Deployment" && r.Namespaced {
						found = true
					}
				}
			}
		}
		if !found {
			t.Fatalf("apps/v1 deployments not among preferred resources")
		}
	})

	t.Run("OpenAPIV3", func(t *testing.T) {
		paths, err := dc.OpenAPIV3().Paths()
		must(t, err, "openapi v3 paths")
		for _, want := range []string{"api/v1", "apis/apps/v1"} {
			gv, ok := paths[want]
			if !ok {
				t.Fatalf("openapi v3 index lacks %s", want)
			}
			doc, err := gv.Schema("application/json")
			must(t, err, "openapi v3 %s", want)
			if !strings.Contains(string(doc[:min(len(doc), 200)]), "openapi") {
				t.Fatalf("openapi v3 %s does not start as an OpenAPI document: %.100s", want, doc)
			}
		}
	})

	t.Run("RESTMapper", func(t *testing.T) {
		mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
		m, err := mapper.RESTMapping(schema.GroupKind{Group: "apps", Kind: "Deployment"})
		must(t, err, "mapping Deployment")
		if m.Resource.Resource != "deployments" || m.Resource.Version != "v1" || m.Scope.Name() != "namespace" {
			t.Fatalf("Deployment maps to %v (%s)", m.Resource, m.Scope.Name())
		}
		gvk, err := mapper.KindFor(schema.GroupVersionResource{Resource: "leases"})
		must(t, err, "kind for leases")
		if gvk.Kind != "Lease" || gvk.Group != "coordination.k8s.io" {
			t.Fatalf("leases is %v", gvk)
		}
	})
}

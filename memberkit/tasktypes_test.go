package memberkit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/axp-exchange/axp/memberkit"
	"github.com/axp-exchange/axp/protocol"
)

// A task type neither in the catalog nor offered by another seller is reported with the known
// types close to it; the member's own offer (it is verified) does not count.
func TestUnknownTaskTypes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/services":
			w.Write([]byte(`{"services":[{"type":"text-file"},{"type":"image"}],"on_offer":[
				{"task_type":"text-file","providers":2,"in_catalog":true},
				{"task_type":"poem-sonnet","providers":1,"in_catalog":false},
				{"task_type":"my-own","providers":1,"in_catalog":false}]}`))
		case "/api/members/me":
			w.Write([]byte(`{"member_id":"mem_1","state":"verified","skills":[{"task_type":"my-own"}]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	skills := []protocol.Skill{{TaskType: "text-file"}, {TaskType: "text-flie"}, {TaskType: "poem-sonnet"}, {TaskType: "my-own"}, {TaskType: "zzz"}}
	got, err := memberkit.NewClient(srv.URL, "ss_mem_1_x").UnknownTaskTypes(context.Background(), skills)
	if err != nil {
		t.Fatal(err)
	}
	want := []memberkit.UnknownTaskType{{TaskType: "text-flie", Suggestions: []string{"text-file"}}, {TaskType: "my-own"}, {TaskType: "zzz"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if s := got[0].String(); !strings.Contains(s, `skill task_type "text-flie" is neither in the exchange's catalog nor offered by any other seller`) ||
		!strings.HasSuffix(s, "did you mean text-file?") {
		t.Errorf("warning: %s", s)
	}
}

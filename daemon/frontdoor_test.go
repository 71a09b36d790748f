package daemon_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
)

func get(t *testing.T, url, accept string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// GET / is the front door: an HTML page for a browser, the same links as JSON for an API client;
// other unknown paths stay 404.
func TestFrontDoor(t *testing.T) {
	e := newEnv(t)
	base := e.srv.URL
	wantLinks := []string{base + "/join", base + "/api/services", base + "/openapi.json", base + "/faq.md",
		base + "/.well-known/agent-card.json", base + "/mcp"}

	browser := "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
	res, body := get(t, base+"/", browser)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(res.Header.Get("Vary"), "Accept") {
		t.Fatalf("browser: %d %v", res.StatusCode, res.Header)
	}
	if !strings.HasPrefix(body, "<!doctype html>") || !strings.Contains(body, "<title>axp exchange</title>") {
		t.Fatalf("page: %s", body)
	}
	for _, l := range wantLinks {
		if !strings.Contains(body, `href="`+l+`"`) {
			t.Errorf("the page lacks a link to %s", l)
		}
	}

	for _, accept := range []string{"application/json", "", "*/*", "text/html;q=0.5, application/json"} {
		res, body := get(t, base+"/", accept)
		var fd axp.FrontDoor
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") || json.Unmarshal([]byte(body), &fd) != nil {
			t.Fatalf("Accept %q: %d %s %s", accept, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
		got := map[string]bool{}
		for _, l := range fd.Links {
			got[l.Href] = true
		}
		for _, l := range wantLinks {
			if !got[l] {
				t.Errorf("Accept %q: the JSON lacks %s: %s", accept, l, body)
			}
		}
	}

	if res, body := get(t, base+"/nope", browser); res.StatusCode != http.StatusNotFound || !strings.Contains(body, `"not_found"`) {
		t.Errorf("GET /nope: %d %s", res.StatusCode, body)
	}
}

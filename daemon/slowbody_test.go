package daemon_test

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
)

// A buyer token acts for its one task only: on an operation of another task (or of none) it is
// refused from the path and the headers, before the body is read. Each request here sends its
// headers and half its body, and never the rest: the refusal must come all the same.
func TestBuyerTokenRefusedBeforeBody(t *testing.T) {
	e := newEnv(t)
	addr := strings.TrimPrefix(e.srv.URL, "http://")
	params := map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a haiku about the sea"}}
	mine, _ := createTask(t, e.anon, params)
	other, _ := createTask(t, e.anon, params)
	for _, c := range []struct {
		name, path string
		want       int
	}{
		{"choose_offer, another task's token", "/api/tasks/" + mine.ID + "/choose", http.StatusUnauthorized},
		{"post_message, another task's token", "/api/tasks/" + mine.ID + "/messages", http.StatusUnauthorized},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, raw := halfBody(t, addr, c.path, other.BuyerToken, `{"offer_id": "ofr_0123456789", "text": "hello"}`)
			if status != c.want {
				t.Fatalf("status %d, want %d: %s", status, c.want, raw)
			}
		})
	}
	// The task's own token is not refused for its path: the call goes on to its handler.
	if _, err := do(e.anon.With(mine.BuyerToken), "post_message", map[string]any{"id": mine.ID, "text": "is the brief clear?"}); err != nil {
		var ae *axp.Error
		if !errors.As(err, &ae) || ae.Code == axp.CodeUnauthorized {
			t.Fatalf("post_message with the task's token: %v", err)
		}
	}
}

// halfBody posts to path with a bearer token, announcing body but sending only its first half,
// and returns the answer that comes while the rest is still owed.
func halfBody(t *testing.T, addr, path, token, body string) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := "POST " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAuthorization: Bearer " + token +
		"\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	if _, err := conn.Write([]byte(head + body[:len(body)/2])); err != nil {
		t.Fatal(err)
	}
	// Not a performance bound: without an answer before the body, none comes at all.
	conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s: no answer while the body is unfinished: %v", path, err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	bufio.NewReader(resp.Body).WriteTo(&b)
	return resp.StatusCode, b.String()
}

package outbound_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/outbound"
)

// TestOpenAIChat calls a loopback server that speaks the chat-completions shape: the request
// carries the model, the turns and the key; the reply's text and token counts come back; a
// provider error keeps its message and tokens; an unreachable provider's error never shows the key.
func TestOpenAIChat(t *testing.T) {
	const key = "sk-test-0123456789abcdef"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string       `json:"model"`
			Messages []axp.AITurn `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+key || req.Model != "m1" {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":{"message":"bad request shape"}}`))
			return
		}
		if req.Messages[0].Content == "fail" {
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":{"message":"slow down"},"usage":{"prompt_tokens":3}}`))
			return
		}
		w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"bonjour"}}],"usage":{"prompt_tokens":7,"completion_tokens":2}}`))
	}))
	defer srv.Close()
	m := &outbound.OpenAIChat{BaseURL: srv.URL + "/v1/", Model: "m1", APIKey: key, Client: srv.Client()}
	r, err := m.Chat(context.Background(), []axp.AITurn{{Role: "user", Content: "hello"}})
	if err != nil || r.Text != "bonjour" || r.PromptTokens != 7 || r.CompletionTokens != 2 {
		t.Fatalf("chat: %+v %v", r, err)
	}
	r, err = m.Chat(context.Background(), []axp.AITurn{{Role: "user", Content: "fail"}})
	if err == nil || !strings.Contains(err.Error(), "429: slow down") || r.PromptTokens != 3 || r.Raw != "slow down" {
		t.Fatalf("provider error: %+v %v", r, err)
	}
	srv.Close()
	m.BaseURL = "http://" + key + "@127.0.0.1:1/v1"
	if _, err = m.Chat(context.Background(), []axp.AITurn{{Role: "user", Content: "hello"}}); err == nil || strings.Contains(err.Error(), key) {
		t.Fatalf("unreachable provider: %v", err)
	}
}

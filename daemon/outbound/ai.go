package outbound

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// Model is an AI chat model (docs/design.md section 11): the Mediator, translation and the talk assistant talk to one.
type Model interface {
	// Chat sends the turns and answers the model's reply. The reply's token counts and raw text
	// are filled even when the call fails after the provider answered, for the record.
	Chat(ctx context.Context, turns []axp.AITurn) (ChatReply, error)
	// ChatTools is Chat with functions the model may ask to call: the reply then carries either
	// text or tool calls.
	ChatTools(ctx context.Context, turns []axp.AITurn, tools []Tool) (ChatReply, error)
}

// Tool is a function offered to the model: a name, what it does and the JSON Schema of its
// arguments.
type Tool struct {
	Name        string
	Description string
	Parameters  any
}

// ChatReply is a model's answer: Text (or ToolCalls) on success, Raw (the reply or the provider's
// error text, clipped) for the record, and the tokens the provider counted.
type ChatReply struct {
	Text                           string
	ToolCalls                      []axp.AIToolCall
	Raw                            string
	PromptTokens, CompletionTokens int
}

// OpenAIChat is a Model over one OpenAI-compatible chat-completions endpoint, called through the
// exchange's outbound client (the operator's endpoint, never redirected elsewhere). The API key
// never leaves it except as a fingerprint.
type OpenAIChat struct {
	BaseURL string // ".../v1" or the full ".../chat/completions"
	Model   string
	APIKey  string
	Timeout time.Duration
	// Client is the HTTP client calls go through.
	Client *http.Client
}

// Endpoint is the chat-completions URL of the base URL.
func (o *OpenAIChat) Endpoint() string {
	base := strings.TrimRight(strings.TrimSpace(o.BaseURL), "/")
	if strings.HasSuffix(base, "/chat/completions") {
		return base
	}
	return base + "/chat/completions"
}

// Chat makes one chat-completions call at temperature 0.
func (o *OpenAIChat) Chat(ctx context.Context, turns []axp.AITurn) (ChatReply, error) {
	return o.ChatTools(ctx, turns, nil)
}

// ChatTools makes one chat-completions call at temperature 0 offering tools (none: a plain chat).
func (o *OpenAIChat) ChatTools(ctx context.Context, turns []axp.AITurn, tools []Tool) (ChatReply, error) {
	var r ChatReply
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	request := map[string]any{"model": o.Model, "messages": turns, "temperature": 0}
	if len(tools) > 0 {
		fns := make([]any, len(tools))
		for i, t := range tools {
			fns[i] = map[string]any{"type": "function", "function": map[string]any{"name": t.Name, "description": t.Description, "parameters": t.Parameters}}
		}
		request["tools"] = fns
	}
	body, err := json.Marshal(request)
	if err != nil {
		return r, fmt.Errorf("encoding the chat request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.Endpoint(), bytes.NewReader(body))
	if err != nil {
		return r, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.APIKey)
	}
	if trace := axp.TraceID(ctx); trace != "" {
		req.Header.Set(protocol.HeaderTraceID, trace)
	}
	client := o.Client
	if client == nil {
		return r, errors.New("no HTTP client for the AI provider")
	}
	res, err := client.Do(req)
	if err != nil {
		return r, fmt.Errorf("the AI provider could not be reached: %w", scrubKey(err, o.APIKey))
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 4<<20))
	if err != nil {
		return r, fmt.Errorf("reading the AI provider's answer: %w", err)
	}
	var doc struct {
		Choices []struct {
			Message struct {
				Content   string           `json:"content"`
				ToolCalls []axp.AIToolCall `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	jerr := json.Unmarshal(raw, &doc)
	r.PromptTokens, r.CompletionTokens = doc.Usage.PromptTokens, doc.Usage.CompletionTokens
	if res.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(raw))
		if doc.Error != nil && doc.Error.Message != "" {
			msg = doc.Error.Message
		}
		r.Raw = clipText(msg, 4000)
		return r, fmt.Errorf("the AI provider answered %d: %s", res.StatusCode, clipText(msg, 300))
	}
	if jerr != nil || len(doc.Choices) == 0 {
		r.Raw = clipText(string(raw), 4000)
		return r, errors.New("the AI provider's answer is not a chat completion")
	}
	msg := doc.Choices[0].Message
	r.Text, r.ToolCalls = msg.Content, msg.ToolCalls
	r.Raw = r.Text
	if len(msg.ToolCalls) > 0 {
		calls, _ := json.Marshal(msg.ToolCalls)
		r.Raw = clipText(strings.TrimSpace(r.Text+"\n"+"tool_calls: "+string(calls)), 16000)
	}
	return r, nil
}

// scrubKey keeps an API key out of an error text.
func scrubKey(err error, key string) error {
	if key == "" || !strings.Contains(err.Error(), key) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), key, "[key "+protocol.Fingerprint(key)+"]"))
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

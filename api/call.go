package api

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
)

// Call runs the operation def declares with c and returns its answer decoded, and the body as it
// came (what the CLI prints for --json). I and O come from the declaration, so a call cannot send
// the wrong input or decode into the wrong output. A document (O axp.Document) is the body with
// its content type, its file name when the answer gives one, and the headers the operation
// declares (a deliverable's X-Content-SHA256). Errors are *axp.Error when the exchange answered
// with an error body.
func Call[I, O any](ctx context.Context, c *Client, def contract.Def[I, O], in I, o ...Options) (*O, []byte, error) {
	resp, err := Do(ctx, c, def, in, o...)
	if err != nil {
		return nil, nil, err
	}
	out := new(O)
	if d, ok := any(out).(*axp.Document); ok {
		*d = document(def.Op(), resp)
		return out, resp.Body, nil
	}
	if err := json.Unmarshal(resp.Body, out); err != nil {
		return nil, resp.Body, fmt.Errorf("decode the %s answer: %w", def.Op().Name, err)
	}
	return out, resp.Body, nil
}

// Do runs the operation def declares with c and returns the raw response, for callers that need
// all of it; an error status becomes an *axp.Error.
func Do[I, O any](ctx context.Context, c *Client, def contract.Def[I, O], in I, o ...Options) (*Response, error) {
	return c.Do(ctx, def.Op().Name, in, o...)
}

// URL is the address of the operation def declares on the exchange of c for input in (path
// parameters filled in, a query input on the query string): what the exchange hands members as a
// deliver_url or choose_url.
func URL[I, O any](c *Client, def contract.Def[I, O], in I) (string, error) {
	_, path, _, err := contract.Route(def.Op().Name, in, false)
	if err != nil {
		return "", err
	}
	return c.BaseURL + path, nil
}

// document is the answer resp of op read as a document.
func document(op *contract.Op, resp *Response) axp.Document {
	d := axp.Document{Body: resp.Body, ContentType: resp.Header.Get("Content-Type")}
	if _, p, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err == nil {
		d.Filename = p["filename"]
	}
	for h := range op.ResponseHeaders {
		if v := resp.Header.Get(h); v != "" {
			if d.Header == nil {
				d.Header = map[string]string{}
			}
			d.Header[h] = v
		}
	}
	return d
}

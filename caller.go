package axp

import (
	"io"
)

// CallerKind says how a caller identified itself.
type CallerKind string

// Caller kinds.
const (
	Anonymous  CallerKind = "anonymous"
	MemberCall CallerKind = "member"
	BuyerToken CallerKind = "buyer_token"
	Operator   CallerKind = "admin"
)

// Caller is who makes a call, as established by a door.
type Caller struct {
	Kind     CallerKind
	MemberID string
	Roles    []string
	// Token is a presented buyer token, checked by the task operations themselves.
	Token string
	// IP is the client address (used for per-IP limits; logged only as a fingerprint).
	IP string
}

// Actor names the caller in audit records: "member:<id>", "admin", "buyer", or "anonymous".
func (c Caller) Actor() string {
	switch c.Kind {
	case MemberCall:
		return "member:" + c.MemberID
	case Operator:
		return "admin"
	case BuyerToken:
		return "buyer"
	}
	return "anonymous"
}

// HasRole reports whether the caller is a member with role r.
func (c Caller) HasRole(r string) bool {
	for _, x := range c.Roles {
		if x == r {
			return true
		}
	}
	return false
}

// Document is the output of operations that answer something other than JSON.
type Document struct {
	ContentType string
	Body        []byte
	Header      map[string]string
	// Stream, when set, writes the body instead of Body (large answers such as a backup).
	Stream func(w io.Writer) error
	// Filename names the document for a download (deliverables).
	Filename string
	// Alternative, when set, is another form of the document for a request's Accept header (a
	// browser's HTML page of a Markdown text), or nil to keep this one.
	Alternative func(accept string) *Document
}

// Negotiate answers the Alternative the Accept header asks for, else the document itself.
func (d *Document) Negotiate(accept string) any {
	if d.Alternative != nil {
		if a := d.Alternative(accept); a != nil {
			return a
		}
	}
	return d
}

// Negotiated is an answer with more than one form: the REST door gives it the request's Accept
// header and writes what it returns (a browser's HTML page, an API client's JSON).
type Negotiated interface {
	Negotiate(accept string) any
}

// DocumentContent is a document as a JSON answer, for doors that answer only JSON (an MCP tool
// such as get_deliverable): the body as UTF-8 text, or base64 when it is not text.
type DocumentContent struct {
	Content  string `json:"content" doc:"the document: the text itself when encoding is utf-8, else base64"`
	Encoding string `json:"encoding" schema:"enum=utf-8|base64"`
	MimeType string `json:"mime_type"`
	SHA256   string `json:"sha256" doc:"hex SHA-256 of the document's bytes"`
	Size     int    `json:"size" doc:"bytes"`
	Filename string `json:"filename,omitempty"`
}

package axp

import "time"

// LogEntry is one application log record (GET /api/admin/log).
type LogEntry struct {
	Time    time.Time      `json:"time"`
	Level   string         `json:"level"`
	Source  string         `json:"source"`
	Message string         `json:"message"`
	TraceID string         `json:"trace_id,omitempty"`
	Attrs   map[string]any `json:"attrs,omitempty"`
}

// LogQuery filters the application log.
type LogQuery struct {
	Level  string `json:"level,omitempty" schema:"enum=error|warn|info|debug" doc:"minimum level, default info"`
	Source string `json:"source,omitempty" schema:"maxLength=100" doc:"source prefix, e.g. http or store"`
	Limit  int    `json:"limit,omitempty" schema:"min=1;max=5000" doc:"default 200"`
}

// LogList is the answer of GET /api/admin/log.
type LogList struct {
	Entries []LogEntry `json:"entries"`
}

// AuditRecord says who changed what, when, under which trace.
type AuditRecord struct {
	ID         string         `json:"id"`
	Time       time.Time      `json:"time"`
	Actor      string         `json:"actor"`
	Action     string         `json:"action"`
	EntityType string         `json:"entity_type"`
	EntityID   string         `json:"entity_id"`
	TraceID    string         `json:"trace_id"`
	Details    map[string]any `json:"details,omitempty"`
}

// AuditQuery filters the audit trail.
type AuditQuery struct {
	EntityType string `json:"entity_type,omitempty" schema:"maxLength=40"`
	EntityID   string `json:"entity_id,omitempty" schema:"maxLength=100"`
	Actor      string `json:"actor,omitempty" schema:"maxLength=140"`
	Action     string `json:"action,omitempty" schema:"maxLength=80"`
	Limit      int    `json:"limit,omitempty" schema:"min=1;max=5000" doc:"default 200, newest first"`
}

// AuditList is the answer of GET /api/admin/audit.
type AuditList struct {
	Records []AuditRecord `json:"records"`
}

// MetricsQuery selects the metrics window.
type MetricsQuery struct {
	Hours int `json:"hours,omitempty" schema:"min=1;max=2160" doc:"window in hours, default 24"`
}

// RouteMetrics are the figures of one route or outbound operation.
type RouteMetrics struct {
	Route     string  `json:"route"`
	Count     int64   `json:"count"`
	Errors    int64   `json:"errors"`
	ErrorRate float64 `json:"error_rate"`
	P50Millis float64 `json:"p50_ms"`
	P95Millis float64 `json:"p95_ms"`
}

// Metrics is the answer of GET /api/admin/metrics.
type Metrics struct {
	Hours    int            `json:"hours"`
	Since    time.Time      `json:"since"`
	Routes   []RouteMetrics `json:"routes"`
	Outbound []RouteMetrics `json:"outbound"`
}

// Stats is the answer of GET /api/admin/stats.
type Stats struct {
	Tasks         map[string]int `json:"tasks_by_status"`
	Members       map[string]int `json:"members_by_state"`
	MembersByRole map[string]int `json:"members_by_role"`
	Money         MoneyTotals    `json:"money"`
	Submissions   map[string]int `json:"submissions"`
	Uptime        string         `json:"uptime"`
	SchemaVersion int            `json:"schema_version"`
	Leader        bool           `json:"leader" doc:"whether the daemon that answered runs the once-only background work (sweeper, payment watcher, recorders): always on bbolt; on PostgreSQL the one daemon, among those sharing the database, that holds the leader lock"`
}

// MoneyTotals are totals from the ledger.
type MoneyTotals struct {
	PaymentsIn  Money `json:"payments_in_usd"`
	Fees        Money `json:"fees_usd"`
	PayoutsSent Money `json:"payouts_sent_usd"`
	RefundsSent Money `json:"refunds_sent_usd"`
	Held        Money `json:"held_usd"`
	Losses      Money `json:"losses_usd" doc:"payments written off after they left the chain (platform:losses, shown positive)"`
	LedgerSum   Money `json:"ledger_sum_usd" doc:"always 0: every entry balances"`
	Entries     int   `json:"entries"`
}

// TraceQuery addresses one trace.
type TraceQuery struct {
	TraceID string `json:"traceId" schema:"required;maxLength=128"`
}

// Trace is every row caused by one trace id.
type Trace struct {
	TraceID string        `json:"trace_id"`
	Log     []LogEntry    `json:"log"`
	Audit   []AuditRecord `json:"audit"`
}

// TimelineRow is one row of the operator's view of a task: a timeline event, an audit record, a
// logged request, a message, an AI call or a review, in time order.
type TimelineRow struct {
	At      time.Time      `json:"at"`
	Kind    string         `json:"kind" doc:"event, audit, request, message, ai_call or review"`
	Summary string         `json:"summary"`
	TraceID string         `json:"trace_id,omitempty"`
	Data    map[string]any `json:"data,omitempty"`
}

// AdminTimeline is the answer of GET /api/admin/tasks/{id}/timeline.
type AdminTimeline struct {
	TaskID string        `json:"task_id"`
	Rows   []TimelineRow `json:"rows"`
}

// MemberList is the operator's member list.
type MemberList struct {
	Members []PrivateMember `json:"members"`
}

// MembersQuery filters the operator's member list.
type MembersQuery struct {
	State string `json:"state,omitempty" schema:"enum=registered|verified|unreachable|suspended"`
	Role  string `json:"role,omitempty" schema:"enum=buyer|seller"`
}

// AdminTasksPageDefault and AdminTasksPageMax are admin_tasks' page sizes.
const (
	AdminTasksPageDefault = 50
	AdminTasksPageMax     = 500
)

// AdminTasksQuery filters the operator's list of every task, newest first.
type AdminTasksQuery struct {
	Status string `json:"status,omitempty" schema:"enum=open|awaiting_payment|paid|in_progress|delivered|accepted|disputed|released|refunded|cancelled|expired"`
	Type   string `json:"type,omitempty" schema:"pattern=^[a-z0-9][a-z0-9_-]{1,40}$" doc:"task type, e.g. text-file"`
	Member string `json:"member,omitempty" schema:"maxLength=100" doc:"a member id: tasks it posted as buyer or was chosen for as seller"`
	Since  string `json:"since,omitempty" schema:"maxLength=40" doc:"RFC 3339 time: tasks created at or after it"`
	Cursor string `json:"cursor,omitempty" schema:"maxLength=100" doc:"next_cursor of the previous page"`
	Limit  int    `json:"limit,omitempty" schema:"min=1;max=500" doc:"tasks per page (default 50)"`
}

// AdminTaskRow is one task in the operator's list: who is on it and what it is worth.
type AdminTaskRow struct {
	ID         string    `json:"id"`
	Type       string    `json:"type"`
	Status     string    `json:"status"`
	Buyer      string    `json:"buyer" doc:"the buyer member id, or \"token\" for a buyer without membership"`
	SellerID   string    `json:"seller_id,omitempty"`
	SellerName string    `json:"seller_name,omitempty"`
	Price      *Money    `json:"price_usd,omitempty" doc:"the chosen offer's price; absent before one is chosen"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// AdminTaskList is the answer of GET /api/admin/tasks.
type AdminTaskList struct {
	Tasks []AdminTaskRow `json:"tasks"`
	// NextCursor continues the list; empty on the last page.
	NextCursor string `json:"next_cursor,omitempty"`
}

// SuspendBody suspends a member.
type SuspendBody struct {
	ID     string `json:"id" schema:"required;maxLength=100"`
	Reason string `json:"reason,omitempty" schema:"maxLength=2000"`
}

// The operator operations.

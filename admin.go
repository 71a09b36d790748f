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

// AdminMembers declares admin_members, GET /api/admin/members.
var AdminMembers = Define[MembersQuery, MemberList](Op{Name: "admin_members", Method: get, Path: "/api/admin/members", Tag: "admin", Access: AdminAuth, Summary: "Every member, with private fields."},
	&MembersQuery{State: "registered", Role: "buyer"})

// AdminTasks declares admin_tasks, GET /api/admin/tasks.
var AdminTasks = Define[AdminTasksQuery, AdminTaskList](Op{Name: "admin_tasks", Method: get, Path: "/api/admin/tasks", Tag: "admin", Access: AdminAuth, Summary: "Every task, newest first, filtered by status, type, member and creation time, a page at a time (next_cursor)."},
	&AdminTasksQuery{Status: "open", Type: "text-file", Member: "mem_x", Since: "2026-01-02T15:04:05Z", Cursor: "tsk_x", Limit: 5})

// AdminTask declares admin_task, GET /api/admin/tasks/{id}.
var AdminTask = Define[IDPath, Task](Op{Name: "admin_task", Method: get, Path: "/api/admin/tasks/{id}", Tag: "admin", Access: AdminAuth, Summary: "Any task as its buyer sees it, with its offers."},
	&IDPath{ID: "tsk_x"})

// AdminSuspend declares admin_suspend, POST /api/admin/members/{id}/suspend.
var AdminSuspend = Define[SuspendBody, PrivateMember](Op{Name: "admin_suspend", Method: post, Path: "/api/admin/members/{id}/suspend", Tag: "admin", Access: AdminAuth, Summary: "Suspend a member: out of matching, calls refused."},
	&SuspendBody{ID: "mem_x", Reason: "r"})

// AdminUnsuspend declares admin_unsuspend, POST /api/admin/members/{id}/unsuspend.
var AdminUnsuspend = Define[SuspendBody, PrivateMember](Op{Name: "admin_unsuspend", Method: post, Path: "/api/admin/members/{id}/unsuspend", Tag: "admin", Access: AdminAuth, Summary: "Lift a suspension; the member verifies again."},
	&SuspendBody{ID: "mem_x", Reason: "r"})

// AdminTrace declares admin_trace, GET /api/admin/trace/{traceId}.
var AdminTrace = Define[TraceQuery, Trace](Op{Name: "admin_trace", Method: get, Path: "/api/admin/trace/{traceId}", Tag: "admin", Access: AdminAuth, Summary: "Every row caused by one trace id."},
	&TraceQuery{TraceID: "abc"})

// AdminTaskTimeline declares admin_task_timeline, GET /api/admin/tasks/{id}/timeline.
var AdminTaskTimeline = Define[IDPath, AdminTimeline](Op{Name: "admin_task_timeline", Method: get, Path: "/api/admin/tasks/{id}/timeline", Tag: "admin", Access: AdminAuth, Summary: "Requests, events, messages, AI calls and reviews of a task in time order."},
	&IDPath{ID: "tsk_x"})

// AdminLog declares admin_log, GET /api/admin/log.
var AdminLog = Define[LogQuery, LogList](Op{Name: "admin_log", Method: get, Path: "/api/admin/log", Tag: "admin", Access: AdminAuth, Summary: "The application log."},
	&LogQuery{Level: "info", Source: "http", Limit: 5})

// AdminAudit declares admin_audit, GET /api/admin/audit.
var AdminAudit = Define[AuditQuery, AuditList](Op{Name: "admin_audit", Method: get, Path: "/api/admin/audit", Tag: "admin", Access: AdminAuth, Summary: "Who changed what."},
	&AuditQuery{EntityType: "member", EntityID: "x", Actor: "admin", Action: "a", Limit: 5})

// AdminMetrics declares admin_metrics, GET /api/admin/metrics.
var AdminMetrics = Define[MetricsQuery, Metrics](Op{Name: "admin_metrics", Method: get, Path: "/api/admin/metrics", Tag: "admin", Access: AdminAuth, Summary: "Latency p50/p95 and error rates per endpoint and outbound operation."},
	&MetricsQuery{Hours: 2})

// AdminStats declares admin_stats, GET /api/admin/stats.
var AdminStats = Define[NoInput, Stats](Op{Name: "admin_stats", Method: get, Path: "/api/admin/stats", Tag: "admin", Access: AdminAuth, Summary: "Task counts by status, members by state, money totals."},
	nil)

// AdminBackup declares admin_backup, GET /api/admin/backup.
var AdminBackup = Define[NoInput, Document](Op{Name: "admin_backup", Method: get, Path: "/api/admin/backup", Tag: "admin", Access: AdminAuth, ContentType: "application/octet-stream", Summary: "A consistent hot copy of the database file, taken while the exchange runs."},
	nil)

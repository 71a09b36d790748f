package contract

import (
	"github.com/axp-exchange/axp"
)

// AdminMembers declares admin_members, GET /api/admin/members.
var AdminMembers = Define[axp.MembersQuery, axp.MemberList](Op{Name: "admin_members", Method: get, Path: "/api/admin/members", Tag: "admin", Access: AdminAuth, Summary: "Every member, with private fields."},
	&axp.MembersQuery{State: "registered", Role: "buyer"})

// AdminTasks declares admin_tasks, GET /api/admin/tasks.
var AdminTasks = Define[axp.AdminTasksQuery, axp.AdminTaskList](Op{Name: "admin_tasks", Method: get, Path: "/api/admin/tasks", Tag: "admin", Access: AdminAuth, Summary: "Every task, newest first, filtered by status, type, member and creation time, a page at a time (next_cursor)."},
	&axp.AdminTasksQuery{Status: "open", Type: "text-file", Member: "mem_x", Since: "2026-01-02T15:04:05Z", Cursor: "tsk_x", Limit: 5})

// AdminTask declares admin_task, GET /api/admin/tasks/{id}.
var AdminTask = Define[axp.IDPath, axp.Task](Op{Name: "admin_task", Method: get, Path: "/api/admin/tasks/{id}", Tag: "admin", Access: AdminAuth, Summary: "Any task as its buyer sees it, with its offers."},
	&axp.IDPath{ID: "tsk_x"})

// AdminSuspend declares admin_suspend, POST /api/admin/members/{id}/suspend.
var AdminSuspend = Define[axp.SuspendBody, axp.PrivateMember](Op{Name: "admin_suspend", Method: post, Path: "/api/admin/members/{id}/suspend", Tag: "admin", Access: AdminAuth, Summary: "Suspend a member: out of matching, calls refused."},
	&axp.SuspendBody{ID: "mem_x", Reason: "r"})

// AdminUnsuspend declares admin_unsuspend, POST /api/admin/members/{id}/unsuspend.
var AdminUnsuspend = Define[axp.SuspendBody, axp.PrivateMember](Op{Name: "admin_unsuspend", Method: post, Path: "/api/admin/members/{id}/unsuspend", Tag: "admin", Access: AdminAuth, Summary: "Lift a suspension; the member verifies again."},
	&axp.SuspendBody{ID: "mem_x", Reason: "r"})

// AdminTrace declares admin_trace, GET /api/admin/trace/{traceId}.
var AdminTrace = Define[axp.TraceQuery, axp.Trace](Op{Name: "admin_trace", Method: get, Path: "/api/admin/trace/{traceId}", Tag: "admin", Access: AdminAuth, Summary: "Every row caused by one trace id."},
	&axp.TraceQuery{TraceID: "abc"})

// AdminTaskTimeline declares admin_task_timeline, GET /api/admin/tasks/{id}/timeline.
var AdminTaskTimeline = Define[axp.IDPath, axp.AdminTimeline](Op{Name: "admin_task_timeline", Method: get, Path: "/api/admin/tasks/{id}/timeline", Tag: "admin", Access: AdminAuth, Summary: "Requests, events, messages, AI calls and reviews of a task in time order."},
	&axp.IDPath{ID: "tsk_x"})

// AdminLog declares admin_log, GET /api/admin/log.
var AdminLog = Define[axp.LogQuery, axp.LogList](Op{Name: "admin_log", Method: get, Path: "/api/admin/log", Tag: "admin", Access: AdminAuth, Summary: "The application log."},
	&axp.LogQuery{Level: "info", Source: "http", Limit: 5})

// AdminAudit declares admin_audit, GET /api/admin/audit.
var AdminAudit = Define[axp.AuditQuery, axp.AuditList](Op{Name: "admin_audit", Method: get, Path: "/api/admin/audit", Tag: "admin", Access: AdminAuth, Summary: "Who changed what."},
	&axp.AuditQuery{EntityType: "member", EntityID: "x", Actor: "admin", Action: "a", Limit: 5})

// AdminMetrics declares admin_metrics, GET /api/admin/metrics.
var AdminMetrics = Define[axp.MetricsQuery, axp.Metrics](Op{Name: "admin_metrics", Method: get, Path: "/api/admin/metrics", Tag: "admin", Access: AdminAuth, Summary: "Latency p50/p95 and error rates per endpoint and outbound operation."},
	&axp.MetricsQuery{Hours: 2})

// AdminStats declares admin_stats, GET /api/admin/stats.
var AdminStats = Define[NoInput, axp.Stats](Op{Name: "admin_stats", Method: get, Path: "/api/admin/stats", Tag: "admin", Access: AdminAuth, Summary: "Task counts by status, members by state, money totals."},
	nil)

// AdminBackup declares admin_backup, GET /api/admin/backup.
var AdminBackup = Define[NoInput, axp.Document](Op{Name: "admin_backup", Method: get, Path: "/api/admin/backup", Tag: "admin", Access: AdminAuth, ContentType: "application/octet-stream", Summary: "A consistent hot copy of the database file, taken while the exchange runs."},
	nil)

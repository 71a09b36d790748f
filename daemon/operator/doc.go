// Package operator is the operator's service: audit, log, trace, metrics, stats, announcements,
// operator messages, backups, member suspension and task timelines.
package operator

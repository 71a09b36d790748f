// Package tasks is the task service: posting a task, the quote round, choosing an offer, the job's
// work (deliver, accept, redo, dispute), the sweeper's deadlines and the practice sandbox. It uses
// the members, money and trust services; money and trust reach it only through typed events.
package tasks

// Package board is the members' board service: threads, replies and the operator's moderation.
package board

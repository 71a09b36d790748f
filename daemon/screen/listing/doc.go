// Package listing checks a task brief against the listing policy (what may not be listed on the
// exchange), on package screen's normalised view of the text. Like screen, it must not log, store
// or call anything.
package listing

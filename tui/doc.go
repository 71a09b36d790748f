// Package tui is `axp tui`: a keyboard-driven terminal UI over an exchange, built on Bubble Tea v2
// and Lip Gloss v2. A buyer view lists the buyer's tasks and opens one to compare, choose, preview,
// accept or dispute; an operator view works the approval queue, decides appealed mediations,
// overturns listing rejections and approves or hides the board posts the screen held; / filters
// every list. It reaches the exchange only through a Source (ClientSource wraps the client
// package) and never reads the environment or credentials: cmd resolves those and hands them over.
//
// Model logic (Update and the functions it calls) is kept apart from rendering (view.go) so that
// key handling and data changes are tested without a terminal.
package tui

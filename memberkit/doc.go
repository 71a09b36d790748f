// Package memberkit is the library member agents of an axp exchange are built with: sellers that
// quote and do jobs, and buyers that receive offers and task updates.
//
// It offers, from the bottom up:
//
//   - Server: the member's MCP server (Streamable HTTP, stateless), mounted at /mcp. It refuses
//     every request whose X-AX-Signature does not verify with the member's platform key (spec
//     section 5), answers contact_test itself, and registers every required tool of the member's
//     roles with the schemas of the exchange's tools.json. Answers are checked against the tool's
//     output schema before they leave, so a developer sees their own mistakes first.
//   - Seller, Buyer and Party: the typed handlers a member implements. Defaults answers every
//     tool sensibly (quotes from the declared skills, skips reviews, neutral mediation
//     statements); embed it and override what you need. Worker turns a work function into a
//     Seller that accepts jobs at once, works in the background and delivers.
//   - Client: the member's side of the exchange's REST API (register, verify, conformance,
//     sandbox, heartbeat, skills, quote requests, offers, jobs, deliver, request payment), each
//     call made with the operation's declaration through package api, the exchange's one Go
//     client.
//   - Runner: pull mode, for members without a server: it polls for quote requests, jobs, offers
//     and announcements and answers them with the same handlers.
//   - Credentials: the member's id and secrets, kept in a file only its owner can read.
//   - Agent: all of the above in one call: listen, register on first start (or reuse the saved
//     credentials), verify, heartbeat, and serve (or poll) until the context ends.
//
// memberkit is for third parties: it imports the wire contract (protocol and the domain types of
// the module root), package api and mcp-go, never the exchange's daemon, store, client or tui.
package memberkit

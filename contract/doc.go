// Package contract is the exchange's API contract: every operation declared once with
// Define[I, O] (its name, method and path, access, owner, limits and example input), over the
// domain's types in package axp; Ops, the index that orders them for the documentation; and the
// route of a call (Route), from which every door (REST, MCP, A2A, the CLI and the api client) is
// projected. The declarations of one noun sit in the file of the same name as the noun's types in
// the root (task.go here declares the task operations over ../task.go's types).
package contract

package daemon

import (
	"context"
)

// Sweep runs the window checks once now (tests and the operator's CLI use it).
func (d *Daemon) Sweep() int { return d.tasks.Sweep(context.Background()) }

// Liveness runs the members' liveness checks once now (tests use it).
func (d *Daemon) Liveness() { d.members.Liveness(context.Background()) }

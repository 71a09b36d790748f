package cmd_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/store/pgtest"
)

// TestLeaderKilled runs three `axp serve` processes on one throwaway PostgreSQL database, finds the
// one that leads (its admin stats say `leader: true`), kills it with SIGKILL and shows that another
// takes over within 10 s: it says it leads and does the leader's work, expiring a task whose open
// window (1 s) ends after the kill. Exactly one of the two left leads.
func TestLeaderKilled(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL is a unix signal")
	}
	if testing.Short() {
		t.Skip("starts and kills three exchanges")
	}
	pg, err := pgtest.Start(pgtest.Options{})
	if errors.Is(err, pgtest.ErrNotInstalled) && !pgtest.Required() {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pg.Stop)
	dsn, err := pg.NewDatabase()
	if err != nil {
		t.Fatal(err)
	}
	bin := cmdtest.AxpBinary(t)
	const adminToken = "axp_admin_leader_0123456789"
	// One data dir for the three, as docs/decisions.md ("PostgreSQL") asks: they share its secret.key.
	home, data := t.TempDir(), filepath.Join(t.TempDir(), "data")

	type daemon struct {
		srv    *exec.Cmd
		exited chan error
		stderr syncBuffer
		anon   *client.Client
		admin  *client.Client
		killed bool
	}
	var ds []*daemon
	t.Cleanup(func() {
		for _, d := range ds {
			if !d.killed {
				d.srv.Process.Kill()
				<-d.exited
			}
		}
	})
	// Started one after the other: the first creates the data dir's secret.key the others read.
	for range 3 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		d := &daemon{exited: make(chan error, 1), anon: client.New("http://"+addr, ""), admin: client.New("http://"+addr, adminToken)}
		d.srv = exec.Command(bin, "serve", "--addr", addr, "--data-dir", data, "--store", dsn)
		d.srv.Env = []string{"HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, "data"), "PATH=" + os.Getenv("PATH"),
			"AXP_ADMIN_TOKEN=" + adminToken, "AXP_ANON_TASKS_PER_MINUTE=10000", "AXP_ANON_READS_PER_MINUTE=0",
			"AXP_OPEN_WINDOW=1s", "AXP_SWEEP_EVERY=100ms"}
		d.srv.Stderr = &d.stderr
		if err := d.srv.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { d.exited <- d.srv.Wait() }()
		ds = append(ds, d)
		waitHealthy(t, "http://"+addr, d.exited, &d.stderr)
	}
	ctx := context.Background()
	// leaders lists the live daemons whose admin stats say they lead.
	leaders := func() ([]int, error) {
		var out []int
		for i, d := range ds {
			if d.killed {
				continue
			}
			st, _, err := client.Call(ctx, d.admin, contract.AdminStats, contract.NoInput{})
			if err != nil {
				return nil, fmt.Errorf("daemon %d: %w", i, err)
			}
			if st.Leader {
				out = append(out, i)
			}
		}
		return out, nil
	}
	logs := func() string {
		s := ""
		for i, d := range ds {
			s += fmt.Sprintf("--- daemon %d:\n%s", i, d.stderr.String())
		}
		return s
	}
	oneLeader := func() (int, error) {
		l, err := leaders()
		if err != nil {
			return 0, err
		}
		if len(l) != 1 {
			return 0, fmt.Errorf("daemons leading: %v", l)
		}
		return l[0], nil
	}

	var lead int
	waitFor(t, "one leader among three daemons", func() (err error) {
		lead, err = oneLeader()
		return err
	})
	ds[lead].srv.Process.Kill()
	<-ds[lead].exited
	ds[lead].killed = true
	killed := time.Now()

	// A task posted after the kill through a daemon left: its open window ends a second later,
	// and only a leader's sweeper expires it.
	var via *daemon
	for _, d := range ds {
		if !d.killed {
			via = d
			break
		}
	}
	created, _, err := client.Call(ctx, via.anon, contract.CreateTask, axp.NewTask{Type: "text-file", Params: map[string]any{"prompt": "nobody chooses"}})
	if err != nil {
		t.Fatal(err)
	}
	buyer := via.anon.With(created.BuyerToken)
	deadline := killed.Add(10 * time.Second)
	next := -1
	for {
		var state error
		if next, state = oneLeader(); state == nil {
			task, _, err := client.Call(ctx, buyer, contract.GetTask, axp.TaskQuery{TaskRef: axp.TaskRef{ID: created.ID}})
			switch {
			case err != nil:
				state = err
			case task.Status != axp.TaskExpired:
				state = fmt.Errorf("daemon %d leads; the task past its window is %s", next, task.Status)
			}
		}
		if state == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s after the leader (daemon %d) was killed: %v\n%s", lead, state, logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("daemon %d killed; daemon %d led and expired the task %s after it", lead, next, time.Since(killed).Round(time.Millisecond))
}

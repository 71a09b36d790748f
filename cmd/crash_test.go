package cmd_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
)

// TestCrashKeyedCreation: buyers post tasks with an Idempotency-Key and retry every failure with
// the same key, while `axp serve` is killed with SIGKILL again and again and restarted on the same
// data. Afterwards every key has exactly one task, and every acknowledged task is the one stored.
func TestCrashKeyedCreation(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL is a unix signal")
	}
	if testing.Short() {
		t.Skip("kills and restarts the exchange")
	}
	home := t.TempDir()
	srv := startKillable(t, []string{"HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"AXP_ADMIN_TOKEN=axp_admin_crash_0123456789", "AXP_ANON_TASKS_PER_MINUTE=10000000", "AXP_ANON_READS_PER_MINUTE=0"})
	base, stderr, start, kill := srv.base, &srv.stderr, srv.start, srv.kill

	const workers, kills = 16, 8
	hc := &http.Client{Timeout: 10 * time.Second}
	var stop atomic.Bool
	var mu sync.Mutex
	acked := map[string]string{} // key -> task id answered
	var attempts, failures atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				key := fmt.Sprintf("crash-key-%02d-%06d", w, i)
				body, _ := json.Marshal(map[string]any{"type": "text-file", "params": map[string]any{"prompt": key}})
				for {
					attempts.Add(1)
					req, _ := http.NewRequest(http.MethodPost, base+"/api/tasks", bytes.NewReader(body))
					req.Header.Set("Idempotency-Key", key)
					req.Header.Set("Content-Type", "application/json")
					resp, err := hc.Do(req)
					if err == nil {
						var out axp.CreatedTask
						json.NewDecoder(resp.Body).Decode(&out)
						resp.Body.Close()
						if resp.StatusCode == 201 && out.ID != "" {
							mu.Lock()
							acked[key] = out.ID
							mu.Unlock()
							break
						}
					}
					// Down, restarting, or the same key still in progress: retry with the same key.
					failures.Add(1)
					time.Sleep(5 * time.Millisecond)
				}
			}
		}()
	}
	// Kill at moments set by progress (a few dozen acknowledged creations after each restart),
	// so the kills land while many keyed calls are in flight.
	ackedNow := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(acked)
	}
	waitAcks := func(n int) {
		deadline := time.Now().Add(60 * time.Second)
		for ackedNow() < n {
			if time.Now().After(deadline) {
				t.Fatalf("only %d creations acknowledged, waiting for %d\n%s", ackedNow(), n, stderr.String())
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	for k := range kills {
		waitAcks(ackedNow() + 40 + 15*k)
		kill()
		start()
	}
	waitAcks(ackedNow() + 40)
	stop.Store(true)
	wg.Wait()
	kill()

	db, err := store.Open(filepath.Join(srv.data, store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	byKey := map[string][]string{}
	db.View(func(tx *store.Tx) error {
		for _, status := range axp.TaskStatuses {
			for _, id := range tx.TaskIDsByStatus(status) {
				if task, err := tx.Task(id); err == nil && task != nil {
					k, _ := task.Params["prompt"].(string)
					byKey[k] = append(byKey[k], id)
				}
			}
		}
		return nil
	})
	duplicates := 0
	for k, ids := range byKey {
		if len(ids) > 1 {
			duplicates += len(ids) - 1
			t.Errorf("key %s has %d tasks: %v", k, len(ids), ids)
		}
	}
	for k, id := range acked {
		if ids := byKey[k]; len(ids) != 1 || ids[0] != id {
			t.Errorf("key %s was answered with %s, the store holds %v", k, id, ids)
		}
	}
	if len(acked) < workers*kills {
		t.Fatalf("only %d keyed creations were acknowledged", len(acked))
	}
	t.Logf("%d kills, %d keys acknowledged (%d calls, %d retried), %d tasks stored, %d duplicates",
		kills, len(acked), attempts.Load(), failures.Load(), len(byKey), duplicates)
}

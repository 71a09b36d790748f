package cmd_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/axp-exchange/axp/cmd/cmdtest"
)

// TestSlowClientsCannotStallTheExchange runs `axp serve` as a user would and holds 5,000
// connections open against it from other loopback addresses, each sending its headers and then
// stalling the body it promised. Meanwhile /healthz and a task read answer within a second, and the
// server's RSS stays under 300 MB; after read_timeout the server closes every stalled connection.
// One address opening more than max_conns_per_ip connections is answered 503 with Retry-After.
func TestSlowClientsCannotStallTheExchange(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the server's RSS from /proc and dials from 127.0.0.x")
	}
	if testing.Short() {
		t.Skip("opens 5,000 connections")
	}
	bin := cmdtest.AxpBinary(t)
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	base := "http://" + addr
	home := t.TempDir()
	const readTimeout = 3 * time.Second
	srv := exec.Command(bin, "serve", "--addr", addr, "--data-dir", filepath.Join(t.TempDir(), "data"))
	srv.Env = []string{"HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, "data"), "PATH=" + os.Getenv("PATH"),
		"AXP_ADMIN_TOKEN=axp_admin_slow_0123456789", "AXP_ANON_READS_PER_MINUTE=0", "AXP_ANON_TASKS_PER_MINUTE=1000",
		"AXP_READ_TIMEOUT=" + readTimeout.String()}
	var stderr syncBuffer
	srv.Stderr = &stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	hc := &http.Client{Timeout: 5 * time.Second}
	waitHealthy(t, base, nil, &stderr)
	resp, err := hc.Post(base+"/api/tasks", "application/json", strings.NewReader(`{"type":"text-file","params":{"prompt":"hold on"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		ID         string `json:"id"`
		BuyerToken string `json:"buyer_token"`
	}
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if created.ID == "" {
		t.Fatal("no task created")
	}

	// The attack: 5,000 connections from 40 loopback addresses (125 each, under the per-address
	// cap), each promising a 1,000-byte body and sending one byte of it.
	const attackers, perAttacker = 40, 125
	slow := make([]net.Conn, 0, attackers*perAttacker)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for a := range attackers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+a))}, Timeout: 5 * time.Second}
			for range perAttacker {
				c, err := d.Dial("tcp", addr)
				if err != nil {
					t.Errorf("dial from 127.0.0.%d: %v", 2+a, err)
					return
				}
				fmt.Fprintf(c, "POST /api/tasks HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", addr)
				mu.Lock()
				slow = append(slow, c)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	defer func() {
		for _, c := range slow {
			c.Close()
		}
	}()
	held := len(slow)

	// While they are held, the exchange answers.
	var worst time.Duration
	for i := range 10 {
		for _, path := range []string{"/healthz", "/api/tasks/" + created.ID + "?token=" + created.BuyerToken} {
			start := time.Now()
			resp, err := hc.Get(base + path)
			took := time.Since(start)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("%s during the attack (round %d): %v %v", path, i, err, resp)
			}
			resp.Body.Close()
			worst = max(worst, took)
		}
	}
	if worst > time.Second {
		t.Fatalf("answers took up to %v during the attack", worst)
	}
	rss, peak := memory(t, srv.Process.Pid)
	if peak > 300<<20 {
		t.Fatalf("the server's peak RSS is %d MB with %d slow connections", peak>>20, held)
	}

	// One more address beyond its cap: the excess is answered 503 with Retry-After at once.
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 99)}}
	var extra []net.Conn
	for range 256 {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		extra = append(extra, c)
	}
	over, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	over.SetReadDeadline(time.Now().Add(2 * time.Second))
	shed, err := http.ReadResponse(bufio.NewReader(over), nil)
	if err != nil || shed.StatusCode != 503 || shed.Header.Get("Retry-After") == "" {
		t.Fatalf("a connection over the per-address cap: %v %+v", err, shed)
	}
	over.Close()
	for _, c := range extra {
		c.Close()
	}

	// After read_timeout every stalled request is answered and its connection closed.
	closed := 0
	cut := time.Now().Add(readTimeout + 5*time.Second)
	for _, c := range slow {
		c.SetReadDeadline(cut)
		b, err := bufio.NewReader(c).ReadBytes(0) // reads until the server closes
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			continue // still open
		}
		if len(b) == 0 || bytes.HasPrefix(b, []byte("HTTP/1.1 ")) {
			closed++
		}
	}
	if closed != held {
		t.Fatalf("%d of %d stalled connections were closed by the server", closed, held)
	}
	t.Logf("%d slow connections held; /healthz and a task read answered within %v; server RSS %d MB (peak %d MB); all closed after read_timeout %v",
		held, worst.Round(time.Millisecond), rss>>20, peak>>20, readTimeout)
}

// memory reads a process's resident set and its peak from /proc.
func memory(t *testing.T, pid int) (rss, peak int64) {
	kb, err := cmdtest.ProcStatusKB(strconv.Itoa(pid))
	if err != nil {
		t.Fatal(err)
	}
	return kb["VmRSS"] << 10, kb["VmHWM"] << 10
}

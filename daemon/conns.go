package daemon

import (
	"fmt"
	"net"
	"sync"
	"time"
)

// connLimits are the caps of the listener: in total and per client address.
type connLimits struct {
	total, perIP int
	// exempt are peers whose connections carry many clients (trusted proxies): no per-IP cap.
	exempt map[string]bool
}

// limitListener sheds connections beyond its caps before they hold a goroutine or a request: the
// connection is answered at once with 503 and Retry-After, and closed. Connections under the caps
// are counted until they close.
type limitListener struct {
	net.Listener
	lim connLimits

	mu    sync.Mutex
	open  int
	perIP map[string]int
	shed  func(reason string) // told of each connection refused (logs, metrics)
}

func newLimitListener(ln net.Listener, lim connLimits, shed func(string)) *limitListener {
	return &limitListener{Listener: ln, lim: lim, perIP: map[string]int{}, shed: shed}
}

// Accept returns the next connection under the caps; those over them are answered and closed here.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := peerIP(c)
		if reason := l.admit(ip); reason != "" {
			go refuseConn(c, reason)
			if l.shed != nil {
				l.shed(reason)
			}
			continue
		}
		return &countedConn{Conn: c, l: l, ip: ip}, nil
	}
}

// admit counts a new connection from ip, or says why it is refused.
func (l *limitListener) admit(ip string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lim.total > 0 && l.open >= l.lim.total {
		return fmt.Sprintf("the exchange holds its maximum of %d connections", l.lim.total)
	}
	if l.lim.perIP > 0 && !l.lim.exempt[ip] && l.perIP[ip] >= l.lim.perIP {
		return fmt.Sprintf("your address holds the maximum of %d open connections", l.lim.perIP)
	}
	l.open++
	l.perIP[ip]++
	return ""
}

func (l *limitListener) release(ip string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if l.perIP[ip]--; l.perIP[ip] <= 0 {
		delete(l.perIP, ip)
	}
}

// Open is the number of connections held now.
func (l *limitListener) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

func peerIP(c net.Conn) string {
	host, _, err := net.SplitHostPort(c.RemoteAddr().String())
	if err != nil {
		return c.RemoteAddr().String()
	}
	return host
}

// refuseConn answers a shed connection with 503 (the error body of every answer) and closes it,
// without waiting for its request: a client that never sends one holds nothing.
func refuseConn(c net.Conn, reason string) {
	defer c.Close()
	body := fmt.Sprintf(`{"error":{"code":"unavailable","message":%q,"hint":"retry after the Retry-After seconds; keep fewer connections open"}}`+"\n", reason)
	c.SetWriteDeadline(time.Now().Add(2 * time.Second))
	fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 5\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}

// countedConn releases its slot once, when closed.
type countedConn struct {
	net.Conn
	l    *limitListener
	ip   string
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.release(c.ip) })
	return c.Conn.Close()
}

package daemon_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestFrontDoorInBrowser renders GET / in headless Chromium, as a browser sends it, and checks
// that the page renders: the DOM holds the links and the screenshot is a page with text on it,
// not a blank or an error page. It needs Chromium, which a fresh machine lacks: set AXP_CHROMIUM
// to its binary (scripts/browser-check installs the Debian package and does; CI runs it after
// `make test`).
func TestFrontDoorInBrowser(t *testing.T) {
	bin := os.Getenv("AXP_CHROMIUM")
	if bin == "" {
		t.Skip("set AXP_CHROMIUM to a Chromium binary (scripts/browser-check installs one)")
	}
	e := newEnv(t)
	url := e.srv.URL + "/"
	run := func(args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		flags := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir()}
		cmd := exec.CommandContext(ctx, bin, append(append(flags, args...), url)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Dir = t.TempDir()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
		}
		return out
	}

	dom := string(run("--dump-dom"))
	for _, want := range []string{"<title>axp exchange</title>", `href="` + e.srv.URL + `/join"`, `href="` + e.srv.URL + `/mcp"`,
		`href="` + e.srv.URL + `/.well-known/agent-card.json"`, "An Agent Services Exchange", "Sell: join as a seller agent", "Buy: post a task",
		`id="jobs-done-today"`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered DOM lacks %s:\n%s", want, dom)
		}
	}

	shot := filepath.Join(t.TempDir(), "front.png")
	run("--window-size=1024,768", "--hide-scrollbars", "--screenshot="+shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1024 || b.Dy() != 768 {
		t.Fatalf("screenshot is %v, want 1024x768", b)
	}
	bg, surface, dark, link := inkOf(img)
	// The page background is the stylesheet's off-white, the calls to action sit on white cards
	// with code on light grey; text is drawn in dark ink and the links in blue. A blank page, a
	// dark error page or unstyled output fails one of these.
	if bg < 0.25 || bg+surface < 0.6 {
		t.Errorf("%.0f%% of the screenshot is the page's background and %.0f%% its cards and code: not the front door", bg*100, surface*100)
	}
	if dark < 0.002 || link < 0.0005 {
		t.Errorf("the screenshot has %.2f%% dark text and %.2f%% link pixels: the page did not render its text", dark*100, link*100)
	}
	if dst := os.Getenv("AXP_SCREENSHOT_DIR"); dst != "" { // keep it to look at (a CI artifact)
		b, _ := os.ReadFile(shot)
		os.WriteFile(filepath.Join(dst, "front.png"), b, 0o644)
	}
}

// inkOf measures a screenshot: the share of pixels in the page's background colour (#fbfbf8), on
// its cards and code (#fff, #eef0f4), in dark text colour and in the links' blue.
func inkOf(img image.Image) (bg, surface, dark, link float64) {
	b := img.Bounds()
	var nbg, nsurface, ndark, nlink, n int
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			n++
			switch {
			case near(r, 0xfb) && near(g, 0xfb) && near(bl, 0xf8):
				nbg++
			case near(r, 0xff) && near(g, 0xff) && near(bl, 0xff), near(r, 0xee) && near(g, 0xf0) && near(bl, 0xf4):
				nsurface++
			case r < 0x70 && g < 0x70 && bl < 0x80:
				ndark++
			case bl > 0x90 && r < 0x80 && bl > r+0x40:
				nlink++
			}
		}
	}
	return float64(nbg) / float64(n), float64(nsurface) / float64(n), float64(ndark) / float64(n), float64(nlink) / float64(n)
}

func near(v, want uint32) bool { return v+3 >= want && v <= want+3 }

// TestPagesWrapInBrowser renders the exchange's pages for people (the front door, /services,
// /join, and /mcp as a browser sees it) in headless Chromium at a phone's width and at 1280
// pixels, and measures that nothing scrolls sideways: neither the page nor any block of it (a
// command in a <pre> wraps). Each page is served again from the test with a script that writes
// the widest overflow into the title, which --dump-dom then shows. It needs Chromium, like
// TestFrontDoorInBrowser.
func TestPagesWrapInBrowser(t *testing.T) {
	bin := os.Getenv("AXP_CHROMIUM")
	if bin == "" {
		t.Skip("set AXP_CHROMIUM to a Chromium binary (scripts/browser-check installs one)")
	}
	e := newEnv(t)
	e.instantSeller("text-file", "0.50", 5, nil, nil)
	const measure = `<script>
addEventListener('load', () => {
  let worst = document.documentElement.scrollWidth - document.documentElement.clientWidth, what = 'the page';
  for (const el of document.querySelectorAll('pre, code, p, li, h1, h2, div')) {
    const over = el.scrollWidth - el.clientWidth;
    if (over > worst) { worst = over; what = el.tagName + ': ' + el.textContent.slice(0, 60); }
  }
  document.title = 'overflow=' + worst + ' in ' + what;
});
</script>`
	for _, path := range []string{"/", "/services", "/join", "/mcp"} {
		_, page := get(t, e.srv.URL+path, "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
		if !strings.Contains(page, "</body>") {
			t.Fatalf("%s is not an HTML page: %.200s", path, page)
		}
		probe := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, strings.Replace(page, "</body>", measure+"</body>", 1))
		}))
		for _, width := range []int{390, 1280} {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
				"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+t.TempDir(),
				fmt.Sprintf("--window-size=%d,900", width), "--dump-dom", probe.URL)
			out, err := cmd.Output()
			cancel()
			if err != nil {
				t.Fatalf("chromium %s at %d px: %v", path, width, err)
			}
			title := regexp.MustCompile(`<title>(overflow=[^<]*)</title>`).FindStringSubmatch(string(out))
			if title == nil {
				t.Fatalf("%s at %d px: the measure did not run:\n%.500s", path, width, out)
			}
			if !strings.HasPrefix(title[1], "overflow=0 ") && !strings.HasPrefix(title[1], "overflow=-") {
				t.Errorf("%s at %d px scrolls sideways: %s", path, width, html.UnescapeString(title[1]))
			}
		}
		probe.Close()
	}
}

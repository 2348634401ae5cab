package kernelreport

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sabline/sabline/confine"
)

// The environment of TestBrowser.
const (
	// requireChromiumEnv, set to 1, fails TestBrowser where it finds no
	// Chromium, instead of skipping it (CI sets it).
	requireChromiumEnv = "SABLINE_REQUIRE_CHROMIUM"
	// chromiumEnv names the browser's executable, where it is not one of
	// the names and places chromiumLocations tries.
	chromiumEnv = "SABLINE_CHROMIUM"
	// screenshotEnv names a file to write a PNG of the whole page to.
	screenshotEnv = "SABLINE_REPORT_SCREENSHOT"
	// pageEnv names a page `sabline report --html` wrote, to load instead
	// of the committed reports rendered here. Relative paths, in both,
	// are from this package's directory, where go test runs the test.
	pageEnv = "SABLINE_REPORT_HTML"
)

// chromiumLocations are the names and places of a Chromium, a Chrome or
// an Edge (both are Chromium) on goos, in the order they are tried.
func chromiumLocations(goos string) []string {
	switch goos {
	case "darwin":
		return []string{"/Applications/Chromium.app/Contents/MacOS/Chromium",
			"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"}
	case "windows":
		local := filepath.Join(os.Getenv("USERPROFILE"), `AppData\Local`)
		return []string{"chrome", "chrome.exe",
			`C:\Program Files\Google\Chrome\Application\chrome.exe`,
			`C:\Program Files (x86)\Google\Chrome\Application\chrome.exe`,
			filepath.Join(local, `Google\Chrome\Application\chrome.exe`),
			filepath.Join(local, `Chromium\Application\chrome.exe`),
			"msedge", "msedge.exe",
			`C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe`,
			`C:\Program Files\Microsoft\Edge\Application\msedge.exe`}
	}
	// Chrome first: where both are, its package brings the profile that
	// lets its sandbox start on a system that restricts user namespaces.
	return []string{"google-chrome", "google-chrome-stable", "chromium", "chromium-browser",
		"headless-shell", "/snap/bin/chromium"}
}

// findChromium returns the browser's executable, or why there is none.
func findChromium() (string, error) {
	if p := os.Getenv(chromiumEnv); p != "" {
		return exec.LookPath(p)
	}
	for _, l := range chromiumLocations(runtime.GOOS) {
		if p, err := exec.LookPath(l); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium, Chrome or Edge among %s (set %s to one)",
		strings.Join(chromiumLocations(runtime.GOOS), ", "), chromiumEnv)
}

// browser starts a headless Chromium for the test, or skips it where
// there is none (fails, where requireChromiumEnv is 1).
func browser(t *testing.T) context.Context {
	t.Helper()
	bin, err := findChromium()
	if err != nil {
		if os.Getenv(requireChromiumEnv) == "1" {
			t.Fatalf("%s=1: %v", requireChromiumEnv, err)
		}
		t.Skipf("%v; %s=1 makes this a failure", err, requireChromiumEnv)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin),
		chromedp.WindowSize(1400, 1000))
	if os.Geteuid() == 0 {
		// Chromium refuses to start as root with its sandbox, whose
		// setuid and namespace layers assume an unprivileged user (CI
		// runs as root, in a container). Without it nothing foreign runs:
		// the pages loaded are the test's own, the report's has no
		// script, and its Content-Security-Policy allows none.
		opts = append(opts, chromedp.NoSandbox)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := context.WithTimeout(alloc, 2*time.Minute)
	t.Cleanup(cancel)
	ctx, cancelTab := chromedp.NewContext(ctx)
	t.Cleanup(cancelTab)
	// The browser starts with the tab's context, whose end ends it: the
	// console's subscriptions each have a context of their own, beneath.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	t.Logf("browser: %s", bin)
	return ctx
}

// console collects what the page writes to its console, from now until
// stop is called. stop writes a mark of its own on the console and waits,
// within the browser's bound, until the mark is collected: the browser
// tells of the page's messages in order, so every message of the actions
// before stop has come by then, however loaded the machine. Before, stop
// waited 300 ms, and a message that came later was not seen: with no
// wait, the control page's exception went unseen one run in five.
func console(ctx context.Context) (stop func(*testing.T) []chromedp.ConsoleMessage) {
	mark := fmt.Sprintf("sabline-console-mark-%d", time.Now().UnixNano())
	ctx, cancel := context.WithCancel(ctx)
	messages := chromedp.Console(ctx)
	var mu sync.Mutex
	var got []chromedp.ConsoleMessage
	marked, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Text == mark {
				close(marked)
				return
			}
			mu.Lock()
			got = append(got, m)
			mu.Unlock()
		}
	}()
	return func(t *testing.T) []chromedp.ConsoleMessage {
		t.Helper()
		defer func() {
			cancel()
			<-done
		}()
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[int](
			fmt.Sprintf("console.debug(%q), 0", mark))); err != nil {
			t.Fatalf("write the console's mark: %v", err)
		}
		select {
		case <-marked:
		case <-done: // closed once the mark came, too
			select {
			case <-marked:
			default:
				t.Fatalf("the console's messages ended before its mark came: %v", ctx.Err())
			}
		}
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

// TestBrowser loads the report's HTML in a headless Chromium: the page
// writes no error to the console, throws nothing and requests nothing
// more, has one row per ENFORCES row with a column per system, and one
// per target. The page is the committed reports rendered, or the one
// pageEnv names. With screenshotEnv set, it saves a PNG of the whole page
// there. The control: a page that writes an error and throws is seen to.
func TestBrowser(t *testing.T) {
	ctx := browser(t)
	control := "data:text/html,<title>control</title><script>console.error('control-error');" +
		"throw new Error('control-throw')</script>"
	stop := console(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(control)); err != nil {
		t.Fatalf("load the control page: %v", err)
	}
	var seenError, seenThrow bool
	for _, m := range stop(t) {
		seenError = seenError ||
			(m.Type == chromedp.ConsoleError && strings.Contains(m.Text, "control-error"))
		seenThrow = seenThrow || (m.IsException() && strings.Contains(m.Text, "control-throw"))
	}
	if !seenError || !seenThrow {
		t.Fatalf("the control page's console error (%v) and exception (%v) were not both seen",
			seenError, seenThrow)
	}

	path, targets := os.Getenv(pageEnv), -1
	if path == "" {
		reports := committed(t)
		page, err := HTML(reports)
		if err != nil {
			t.Fatal(err)
		}
		path = filepath.Join(t.TempDir(), "report.html")
		if err := os.WriteFile(path, page, 0o644); err != nil {
			t.Fatal(err)
		}
		targets = 0
		for _, r := range reports {
			targets += len(r.Targets)
		}
	}
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The page is served from a loopback address, alone: a request for
	// anything else (which the page must not make) is answered 404, an
	// error on the console. A browser's own request for a favicon is not
	// the page's.
	var mu sync.Mutex
	var others []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			if r.URL.Path != "/favicon.ico" {
				mu.Lock()
				others = append(others, r.URL.String())
				mu.Unlock()
			}
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	defer srv.Close()
	stop = console(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	count := func(selector string) int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](
			fmt.Sprintf("document.querySelectorAll(%q).length", selector)))
		if err != nil {
			t.Fatalf("count %s: %v", selector, err)
		}
		return n
	}
	if got := count("table.enforces tbody tr"); got != len(confine.Enforces()) {
		t.Errorf("the enforcement table has %d rows, want %d", got, len(confine.Enforces()))
	}
	if got := count("table.enforces thead th"); got != 2+len(confine.Systems()) {
		t.Errorf("the enforcement table has %d columns, want %d", got, 2+len(confine.Systems()))
	}
	got := count("table.targets tbody tr")
	if targets >= 0 && got != targets || got == 0 {
		t.Errorf("the targets tables have %d rows, want %d", got, targets)
	}
	if n := count("script, img, iframe, link, object, embed"); n != 0 {
		t.Errorf("the page has %d elements that load or run something", n)
	}
	if out := os.Getenv(screenshotEnv); out != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot: %v", err)
		}
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s (%d bytes)", out, len(png))
	}
	messages := stop(t)
	mu.Lock()
	defer mu.Unlock()
	if len(others) > 0 {
		t.Errorf("the page requested %s", strings.Join(others, ", "))
	}
	for _, m := range messages {
		switch {
		case m.Type == chromedp.ConsoleError || m.IsException():
			t.Errorf("console: %s (%s:%d)", m, m.URL, m.Line)
		default:
			t.Logf("console: %s", m)
		}
	}
}

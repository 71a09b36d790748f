package member

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/axp-exchange/axp/memberkit"
	"github.com/axp-exchange/axp/protocol"
)

// execWork is the work function of `--exec CMD`: CMD runs through the shell with the job (the
// do_task input) as JSON on stdin; its stdout, up to 256 KB, is the deliverable. A non-zero exit
// is a failure whose reason is the end of its stderr: the seller's to read, so the buyer is told
// only that the job could not be done (a memberkit.PrivateError).
func execWork(command string, env []string, stderr io.Writer) memberkit.WorkFunc {
	work := runExec(command, env, stderr)
	return func(ctx context.Context, job *memberkit.Job) (memberkit.Deliverable, error) {
		d, err := work(ctx, job)
		if err != nil {
			err = &memberkit.PrivateError{Reason: jobFailedReason, Err: err}
		}
		return d, err
	}
}

// jobFailedReason is what the buyer reads when the job's command fails.
const jobFailedReason = "the seller could not do this job"

func runExec(command string, env []string, stderr io.Writer) memberkit.WorkFunc {
	return func(ctx context.Context, job *memberkit.Job) (memberkit.Deliverable, error) {
		in, err := json.Marshal(job.DoTaskInput)
		if err != nil {
			return memberkit.Deliverable{}, err
		}
		c := shellCmd(ctx, command)
		test := "0"
		if job.Test {
			test = "1"
		}
		c.Env = append(append([]string(nil), env...), "AXP_TASK_ID="+job.TaskID, "AXP_TASK_TYPE="+job.TaskType, "AXP_TEST="+test)
		c.Stdin = bytes.NewReader(in)
		out := &limited{max: protocol.MaxInlineDeliverable}
		tail := &tailBuffer{max: 2048, also: stderr}
		c.Stdout, c.Stderr = out, tail
		c.WaitDelay = 5 * time.Second // after a cancel, do not wait forever for a child holding stdout
		if err := c.Run(); err != nil {
			msg := strings.TrimSpace(tail.String())
			var ee *exec.ExitError
			switch {
			case ctx.Err() != nil:
				return memberkit.Deliverable{}, fmt.Errorf("the command did not finish in time: %w", ctx.Err())
			case out.over:
				return memberkit.Deliverable{}, fmt.Errorf("the command wrote more than %d bytes (256 KB), the inline delivery limit", protocol.MaxInlineDeliverable)
			case errors.As(err, &ee):
				if msg == "" {
					return memberkit.Deliverable{}, fmt.Errorf("the command failed (%v)", err)
				}
				return memberkit.Deliverable{}, fmt.Errorf("the command failed (%v): %s", err, msg)
			}
			return memberkit.Deliverable{}, fmt.Errorf("the command could not run: %w", err)
		}
		if out.over {
			return memberkit.Deliverable{}, fmt.Errorf("the command wrote more than %d bytes (256 KB), the inline delivery limit", protocol.MaxInlineDeliverable)
		}
		if out.buf.Len() == 0 {
			return memberkit.Deliverable{}, errors.New("the command wrote nothing on stdout: its stdout is the deliverable")
		}
		content := out.buf.Bytes()
		mt := detectMime(content)
		return memberkit.Deliverable{Content: string(content), MimeType: mt, Filename: filename(job, mt)}, nil
	}
}

// shellCmd runs command through the shell (cmd /C on Windows).
func shellCmd(ctx context.Context, command string) *exec.Cmd {
	if runtime.GOOS == "windows" {
		return exec.CommandContext(ctx, "cmd", "/C", command)
	}
	return exec.CommandContext(ctx, "/bin/sh", "-c", command)
}

// detectMime is net/http.DetectContentType, with JSON and Markdown told apart from plain text.
func detectMime(b []byte) string {
	mt := http.DetectContentType(b)
	if !strings.HasPrefix(mt, "text/plain") {
		return mt
	}
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed) {
		return "application/json"
	}
	if utf8.Valid(b) && looksLikeMarkdown(string(b)) {
		return "text/markdown; charset=utf-8"
	}
	return mt
}

// looksLikeMarkdown spots the usual marks: a heading, a fenced block, a list with a link or
// emphasis, or a table.
func looksLikeMarkdown(s string) bool {
	score := 0
	for _, line := range strings.Split(s, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(l, "# "), strings.HasPrefix(l, "## "), strings.HasPrefix(l, "### "):
			score += 2
		case strings.HasPrefix(l, "```"):
			score += 2
		case strings.HasPrefix(l, "|") && strings.HasSuffix(l, "|") && strings.Count(l, "|") >= 3:
			score++
		case strings.HasPrefix(l, "- "), strings.HasPrefix(l, "* "), strings.HasPrefix(l, "1. "):
			score++
		}
		if strings.Contains(l, "](") || strings.Contains(l, "**") {
			score++
		}
	}
	return score >= 2
}

// filename is the task's filename param when it has one, else output.<ext of the mime type>.
func filename(job *memberkit.Job, mt string) string {
	if f, ok := job.Params["filename"].(string); ok && strings.TrimSpace(f) != "" {
		return f
	}
	base, _, _ := strings.Cut(mt, ";")
	switch base {
	case "text/plain":
		return "output.txt"
	case "application/json":
		return "output.json"
	case "text/markdown":
		return "output.md"
	case "text/html":
		return "output.html"
	}
	if exts, _ := mime.ExtensionsByType(base); len(exts) > 0 {
		return "output" + exts[0]
	}
	return "output"
}

// limited keeps the first max bytes written and notes whether more came.
type limited struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room < len(p) {
		l.over = true
		if room > 0 {
			l.buf.Write(p[:room])
		}
		return len(p), nil // keep the command running to its end; the size is refused after
	}
	return l.buf.Write(p)
}

// tailBuffer keeps the last max bytes written, and copies everything to also.
type tailBuffer struct {
	b    []byte
	max  int
	also io.Writer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	if t.also != nil {
		t.also.Write(p)
	}
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	s := strings.ToValidUTF8(string(t.b), "?")
	return strings.Join(strings.Fields(s), " ")
}

// environ is the environment the --exec command runs with: this process's.
func environ() []string { return os.Environ() }

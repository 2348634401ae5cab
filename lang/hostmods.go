package lang

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/httpget"
	"go.starlark.net/lib/json"
	"go.starlark.net/lib/math"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// Sabline's own host modules. Each does its own I/O with no budget check;
// which budget grants reach them, and what they widen the OS policy to, is
// the ffi item and the confine package's widening table:
//
//	math, json, hashlib     widen nothing: no I/O
//	pathlib                 any path: read_text, write_text, exists
//	socket, urllib          any host: socket.connect, urllib.urlopen
//	requests                any path and any host: get, download
//	os, subprocess, ctypes  nothing enforced: system, run, raw system calls
//	nativefmt               not in the table: writes a file through its own call
func init() {
	RegisterModule("math", func() starlark.Value { return math.Module })
	RegisterModule("json", jsonModule)
	RegisterModule("hashlib", hashlibModule)
	RegisterModule("pathlib", pathlibModule)
	RegisterModule("socket", socketModule)
	RegisterModule("urllib", urllibModule)
	RegisterModule("requests", requestsModule)
	RegisterModule("os", osModule)
	RegisterModule("subprocess", subprocessModule)
	RegisterModule("ctypes", ctypesModule)
	RegisterModule("nativefmt", nativefmtModule)
}

type builtinFn = func(*starlark.Thread, *starlark.Builtin, starlark.Tuple,
	[]starlark.Tuple) (starlark.Value, error)

// oneString unpacks a single string argument.
func oneString(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (string, error) {
	var s string
	err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &s)
	return s, err
}

// maxJSONDepth is how deep json.decode lets a document nest: deeper
// arrays and objects are refused before anything is decoded.
const maxJSONDepth = 64

// jsonModule is Starlark's json module with json.decode bounded in depth.
func jsonModule() starlark.Value {
	m := &starlarkstruct.Module{Name: json.Module.Name, Members: starlark.StringDict{}}
	for k, v := range json.Module.Members {
		m.Members[k] = v
	}
	decode := json.Module.Members["decode"].(*starlark.Builtin)
	m.Members["decode"] = starlark.NewBuiltin("json.decode", func(t *starlark.Thread,
		b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) > 0 {
			if s, ok := args[0].(starlark.String); ok {
				if err := jsonDepth(string(s), maxJSONDepth); err != nil {
					return nil, codes.Errorf(codes.E305, "json.decode: %w", err)
				}
			}
		}
		return decode.CallInternal(t, args, kwargs)
	})
	return m
}

// jsonDepth returns an error when the JSON text s nests arrays and
// objects deeper than max. Brackets inside strings do not count; s need
// not be valid JSON (the decoder says what else is wrong with it).
func jsonDepth(s string, max int) error {
	depth, inString, escaped := 0, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > max {
				return fmt.Errorf("the document nests deeper than %d at byte %d", max, i)
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return nil
}

func hashlibModule() starlark.Value {
	digest := func(h func() hash.Hash) builtinFn {
		return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			var data starlark.Value
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &data); err != nil {
				return nil, err
			}
			s, err := text(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.Name(), err)
			}
			x := h()
			x.Write([]byte(s))
			return starlark.String(hex.EncodeToString(x.Sum(nil))), nil
		}
	}
	return module("hashlib", map[string]builtinFn{
		"sha256": digest(sha256.New),
		"sha1":   digest(sha1.New),
		"md5":    digest(md5.New),
	})
}

func pathlibModule() starlark.Value {
	return module("pathlib", map[string]builtinFn{
		"read_text": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			p, err := oneString(b, args, kwargs)
			if err != nil {
				return nil, err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return nil, fmt.Errorf("pathlib.read_text: %w", err)
			}
			return starlark.String(data), nil
		},
		"write_text": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			var p, data string
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &p, &data); err != nil {
				return nil, err
			}
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				return nil, fmt.Errorf("pathlib.write_text: %w", err)
			}
			return starlark.None, nil
		},
		"exists": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			p, err := oneString(b, args, kwargs)
			if err != nil {
				return nil, err
			}
			_, err = os.Lstat(p)
			return starlark.Bool(err == nil), nil
		},
	})
}

// hostDial is the unchecked dial of the socket module, made as t's run
// makes every connection.
func hostDial(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
	kwargs []starlark.Tuple) (net.Conn, error) {
	var host string
	var port int
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &host, &port); err != nil {
		return nil, err
	}
	c, err := dialed(context.Background(), DialOf(t), "tcp",
		net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return c, nil
}

func socketModule() starlark.Value {
	return module("socket", map[string]builtinFn{
		// connect(host, port) opens a TCP connection with send, recv, close.
		"connect": func(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			c, err := hostDial(t, b, args, kwargs)
			if err != nil {
				return nil, err
			}
			return &conn{c: c, name: c.RemoteAddr().String()}, nil
		},
	})
}

// maxRedirects is the most redirects hostGet follows.
const maxRedirects = 10

// hostGet gets raw, unchecked, following up to maxRedirects redirects
// (301, 302, 303, 307 and 308, to the Location they name, read against
// the URL that named it), and returns the last response. Its errors are
// name's.
func hostGet(dial DialFunc, name, raw string) (*httpget.Response, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for redirects := 0; ; redirects++ {
		resp, err := fetch(context.Background(), u, dial)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		switch resp.StatusCode {
		case 301, 302, 303, 307, 308:
		default:
			return resp, nil
		}
		loc, ok := resp.Value("Location")
		if !ok {
			return resp, nil
		}
		if redirects == maxRedirects {
			return nil, fmt.Errorf("%s: %s: stopped after %d redirects", name, raw, maxRedirects)
		}
		if u, err = u.Parse(loc); err != nil {
			return nil, fmt.Errorf("%s: redirect to %q: %w", name, loc, err)
		}
	}
}

// httpBody gets url, unchecked, and returns the status and the body.
func httpBody(dial DialFunc, name, url string) (int, string, error) {
	resp, err := hostGet(dial, name, url)
	if err != nil {
		return 0, "", err
	}
	return resp.StatusCode, string(resp.Body), nil
}

func urllibModule() starlark.Value {
	return module("urllib", map[string]builtinFn{
		"urlopen": func(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			u, err := oneString(b, args, kwargs)
			if err != nil {
				return nil, err
			}
			_, body, err := httpBody(DialOf(t), b.Name(), u)
			return starlark.String(body), err
		},
	})
}

func requestsModule() starlark.Value {
	return module("requests", map[string]builtinFn{
		"get": func(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			u, err := oneString(b, args, kwargs)
			if err != nil {
				return nil, err
			}
			status, body, err := httpBody(DialOf(t), b.Name(), u)
			if err != nil {
				return nil, err
			}
			return starlarkstruct.FromStringDict(starlark.String("response"), starlark.StringDict{
				"status_code": starlark.MakeInt(status),
				"text":        starlark.String(body),
			}), nil
		},
		// download(url, path) writes the body to a file.
		"download": func(t *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			var u, p string
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &u, &p); err != nil {
				return nil, err
			}
			resp, err := hostGet(DialOf(t), b.Name(), u)
			if err != nil {
				return nil, err
			}
			f, err := os.Create(p)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.Name(), err)
			}
			n, err := f.Write(resp.Body)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.Name(), err)
			}
			return starlark.MakeInt(n), nil
		},
	})
}

// runCommand runs a command to completion and returns its exit status and
// output. A command that cannot be started is an error.
func runCommand(name string, cmd *exec.Cmd) (int, string, error) {
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out), nil
		}
		return -1, string(out), fmt.Errorf("%s: %w", name, err)
	}
	return 0, string(out), nil
}

func osModule() starlark.Value {
	return module("os", map[string]builtinFn{
		// system(command) runs command through the system shell and returns
		// its exit status.
		"system": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			c, err := oneString(b, args, kwargs)
			if err != nil {
				return nil, err
			}
			code, out, err := runCommand(b.Name(), shellCommand(c))
			if err != nil {
				return nil, err
			}
			os.Stdout.WriteString(out)
			return starlark.MakeInt(code), nil
		},
		"getpid": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			return starlark.MakeInt(os.Getpid()), nil
		},
		"getenv": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			n, err := oneString(b, args, kwargs)
			if err != nil {
				return nil, err
			}
			return starlark.String(os.Getenv(n)), nil
		},
		"listdir": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			p, err := oneString(b, args, kwargs)
			if err != nil {
				return nil, err
			}
			names, err := sortedNames(p)
			if err != nil {
				return nil, fmt.Errorf("os.listdir: %w", err)
			}
			return names, nil
		},
		"remove": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			p, err := oneString(b, args, kwargs)
			if err != nil {
				return nil, err
			}
			if err := os.Remove(p); err != nil {
				return nil, fmt.Errorf("os.remove: %w", err)
			}
			return starlark.None, nil
		},
	})
}

func subprocessModule() starlark.Value {
	return module("subprocess", map[string]builtinFn{
		// run(argv) runs argv[0] with the rest as arguments and returns a
		// struct with returncode and stdout (standard output and error).
		"run": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			var argv *starlark.List
			var timeout float64 = 30
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "argv", &argv, "timeout?",
				&timeout); err != nil {
				return nil, err
			}
			if argv.Len() == 0 {
				return nil, fmt.Errorf("%s: argv is empty", b.Name())
			}
			words := make([]string, argv.Len())
			for i := range words {
				s, ok := starlark.AsString(argv.Index(i))
				if !ok {
					return nil, fmt.Errorf("%s: argv[%d] is not a string", b.Name(), i)
				}
				words[i] = s
			}
			ctx, cancel := context.WithTimeout(context.Background(),
				time.Duration(timeout*float64(time.Second)))
			defer cancel()
			code, out, err := runCommand(b.Name(), exec.CommandContext(ctx, words[0], words[1:]...))
			if err != nil {
				return nil, err
			}
			return starlarkstruct.FromStringDict(starlark.String("completed"), starlark.StringDict{
				"returncode": starlark.MakeInt(code),
				"stdout":     starlark.String(out),
			}), nil
		},
	})
}

// nativefmtModule is a module outside the widening table whose render
// writes a file through its own system call, as a vendored native library
// would: nothing in the language sees it.
func nativefmtModule() starlark.Value {
	return module("nativefmt", map[string]builtinFn{
		"render": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			var p, body string
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &p, &body); err != nil {
				return nil, err
			}
			if err := nativeWrite(p, []byte(body)); err != nil {
				return nil, fmt.Errorf("nativefmt.render: %w", err)
			}
			return starlark.None, nil
		},
	})
}

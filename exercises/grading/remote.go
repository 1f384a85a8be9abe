package grading

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// The trust boundary. The grader runs a student's code only in a child
// process, which serves calls: the grader (the parent, built from the
// instructor's sources) sends a function's inputs, the child calls the
// student's function on them and sends back what it returned — grids,
// simulator statistics, error values — and nothing else. The checks, the
// expected values, the tolerances and the points stay in the parent, which
// reads every reply defensively (a size limit per message, a fixed Go type
// per reply, errors reduced to a message and known kinds). Nothing the child
// writes is ever read as a score.

// MaxMessage bounds one message of the channel between the grader and the
// child, in bytes.
const MaxMessage = 64 << 20

// ErrMalformed marks a message on the channel that is not one the grader
// expects: too long, cut short, or not of the reply's type.
var ErrMalformed = errors.New("malformed message")

// MaxErrorText bounds the text of an error sent back by the child.
const MaxErrorText = 400

// Handler answers one call in the child: it decodes args (a gob-encoded
// argument struct of the method), calls the student's function and returns
// the gob-encoded result. An error is a fault of the call itself (an
// unknown method), not the student's error, which is part of the result.
type Handler func(method string, args []byte) (result []byte, err error)

type request struct {
	Method string
	Args   []byte
}

type response struct {
	Result []byte
	Panic  string // the student's code panicked: the value and where
	Fault  string // the call could not be served
}

// writeFrame writes one length-prefixed message.
func writeFrame(w io.Writer, v any) error {
	var buf bytes.Buffer
	buf.Write([]byte{0, 0, 0, 0})
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return fmt.Errorf("grading: encode message: %w", err)
	}
	b := buf.Bytes()
	if len(b)-4 > MaxMessage {
		return fmt.Errorf("grading: message of %d bytes exceeds %d", len(b)-4, MaxMessage)
	}
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("grading: write message: %w", err)
	}
	return nil
}

// readFrame reads one length-prefixed message into v, refusing a message
// longer than MaxMessage.
func readFrame(r io.Reader, v any) error {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > MaxMessage {
		return fmt.Errorf("grading: message of %d bytes exceeds %d: %w", n, MaxMessage, ErrMalformed)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return fmt.Errorf("grading: message cut short (%w): %w", err, ErrMalformed)
	}
	return Decode(b, v)
}

// Encode gob-encodes v, for a Handler's result or a call's arguments.
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, fmt.Errorf("grading: encode: %w", err)
	}
	return buf.Bytes(), nil
}

// Decode gob-decodes b into v; a malformed message is an error, never a
// panic.
func Decode(b []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("grading: %w: %v", ErrMalformed, r)
		}
	}()
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(v); err != nil {
		return fmt.Errorf("grading: %w: %v", ErrMalformed, err)
	}
	return nil
}

// Serve answers calls read from r with h, writing the replies to w, until r
// ends. A panic in h is caught and sent back with the place it happened.
func Serve(r io.Reader, w io.Writer, h Handler) error {
	br := bufio.NewReader(r)
	bw := bufio.NewWriter(w)
	for {
		var req request
		if err := readFrame(br, &req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		resp := serveOne(h, req)
		if err := writeFrame(bw, resp); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("grading: write reply: %w", err)
		}
	}
}

func serveOne(h Handler, req request) (resp response) {
	defer func() {
		if r := recover(); r != nil {
			resp = response{Panic: fmt.Sprintf("%v%s", r, panicSite())}
		}
	}()
	if h == nil {
		return response{Fault: "this exercise serves no calls"}
	}
	res, err := h(req.Method, req.Args)
	if err != nil {
		return response{Fault: err.Error()}
	}
	return response{Result: res}
}

// ChildFailure stops a check when the child can no longer answer: it died,
// ran out of time or memory, or broke the channel. Status and Message say
// which, as the grader found out.
type ChildFailure struct {
	Status  Status
	Message string
}

func (f *ChildFailure) Error() string { return string(f.Status) + ": " + f.Message }

// RemotePanic stops a check whose call panicked in the child; Value holds
// the panic's value and where it happened, as text.
type RemotePanic struct{ Value string }

func (p *RemotePanic) Error() string { return "panicked: " + p.Value }

// Client makes calls to a child. Calls are serialised. A call that cannot
// complete stops the running check by panicking with a *ChildFailure (from
// Diagnose) or a *RemotePanic; Run turns either into the exercise's status.
type Client struct {
	mu sync.Mutex
	w  *bufio.Writer
	r  *bufio.Reader
	// Diagnose, when set, says why the channel broke (after waiting for the
	// child to end); without it a broken channel is reported as a crash.
	Diagnose func(err error) *ChildFailure
	broken   *ChildFailure
}

// NewClient returns a client writing calls to w and reading replies from r.
func NewClient(w io.Writer, r io.Reader) *Client {
	return &Client{w: bufio.NewWriter(w), r: bufio.NewReader(r)}
}

// Call sends method with args (gob-encoded) and decodes the reply into
// result. It returns only on success: see Client.
func (c *Client) Call(method string, args, result any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		panic(c.broken)
	}
	fail := func(err error) {
		f := &ChildFailure{Status: Crashed, Message: fmt.Sprintf("the channel to the submission broke: %v", err)}
		if c.Diagnose != nil {
			if d := c.Diagnose(err); d != nil {
				f = d
			}
		}
		c.broken = f
		panic(f)
	}
	a, err := Encode(args)
	if err != nil {
		panic(fmt.Sprintf("grading: %s: %v", method, err)) // the grader's own mistake
	}
	if err := writeFrame(c.w, request{Method: method, Args: a}); err != nil {
		fail(err)
	}
	if err := c.w.Flush(); err != nil {
		fail(err)
	}
	var resp response
	if err := readFrame(c.r, &resp); err != nil {
		fail(err)
	}
	switch {
	case resp.Panic != "":
		panic(&RemotePanic{Value: clip(resp.Panic, 2*MaxErrorText)})
	case resp.Fault != "":
		fail(fmt.Errorf("%s", clip(resp.Fault, MaxErrorText)))
	}
	if err := Decode(resp.Result, result); err != nil {
		fail(fmt.Errorf("%s: %w", method, err))
	}
}

// WireError is an error as it crosses the channel: its text, cut to
// MaxErrorText, and the names of the known errors it wraps.
type WireError struct {
	Msg   string
	Kinds []string
}

// KnownErrors names the errors whose identity crosses the channel, so
// that errors.Is works on the grader's side; ErrNotImplemented is always
// known.
type KnownErrors map[string]error

// Wire returns err as it crosses the channel, nil for nil.
func (k KnownErrors) Wire(err error) *WireError {
	if err == nil {
		return nil
	}
	w := &WireError{Msg: clip(err.Error(), MaxErrorText)}
	if errors.Is(err, ErrNotImplemented) {
		w.Kinds = append(w.Kinds, "not_implemented")
	}
	for name, e := range k {
		if errors.Is(err, e) {
			w.Kinds = append(w.Kinds, name)
		}
	}
	return w
}

// Err returns the error w stands for: its text, wrapping the known errors
// it names (unknown names are ignored); nil for nil.
func (k KnownErrors) Err(w *WireError) error {
	if w == nil {
		return nil
	}
	e := &remoteError{msg: clip(w.Msg, MaxErrorText)}
	if e.msg == "" {
		e.msg = "(an error with no text)"
	}
	for _, name := range w.Kinds {
		if name == "not_implemented" {
			e.is = append(e.is, ErrNotImplemented)
		} else if known, ok := k[name]; ok {
			e.is = append(e.is, known)
		}
	}
	return e
}

type remoteError struct {
	msg string
	is  []error
}

func (e *remoteError) Error() string { return e.msg }

func (e *remoteError) Is(target error) bool {
	for _, x := range e.is {
		if x == target {
			return true
		}
	}
	return false
}

// clip cuts s to at most n bytes, on a rune boundary, marking the cut, and
// replaces invalid UTF-8.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "�")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

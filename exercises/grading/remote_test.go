package grading

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/internal/testlimit"
)

type addArgs struct{ A, B []float64 }
type addResult struct {
	Sum []float64
	Err *WireError
}

var errOdd = errors.New("odd")

// pair connects a client to Serve(h) through pipes, as the grader and its
// child are connected.
func pair(t *testing.T, h Handler) *Client {
	callsR, callsW := io.Pipe()
	repR, repW := io.Pipe()
	go func() {
		_ = Serve(callsR, repW, h)
		repW.Close()
	}()
	t.Cleanup(func() { callsW.Close() })
	return NewClient(callsW, repR)
}

func TestCallsCrossTheChannelWithTheirErrors(t *testing.T) {
	known := KnownErrors{"odd": errOdd}
	c := pair(t, func(method string, b []byte) ([]byte, error) {
		var a addArgs
		require.NoError(t, Decode(b, &a))
		switch method {
		case "add":
			s := make([]float64, len(a.A))
			for i := range s {
				s[i] = a.A[i] + a.B[i]
			}
			return Encode(addResult{Sum: s})
		case "fail":
			return Encode(addResult{Err: known.Wire(fmt.Errorf("wrapped: %w", errOdd))})
		case "stub":
			return Encode(addResult{Err: known.Wire(ErrNotImplemented)})
		case "panic":
			var s []int
			_ = s[len(a.A)]
		}
		return nil, fmt.Errorf("no method %q", method)
	})
	var r addResult
	c.Call("add", addArgs{A: []float64{1, 2.5}, B: []float64{3, -1}}, &r)
	assert.Equal(t, []float64{4, 1.5}, r.Sum)

	c.Call("fail", addArgs{}, &r)
	err := known.Err(r.Err)
	assert.ErrorIs(t, err, errOdd)
	assert.NotErrorIs(t, err, ErrNotImplemented)
	assert.Equal(t, "wrapped: odd", err.Error())

	c.Call("stub", addArgs{}, &r)
	assert.ErrorIs(t, known.Err(r.Err), ErrNotImplemented)

	func() {
		defer func() {
			p, ok := recover().(*RemotePanic)
			require.True(t, ok, "a panic in the child stops the check as a RemotePanic")
			assert.Contains(t, p.Value, "index out of range [2] with length 0")
		}()
		c.Call("panic", addArgs{A: []float64{1, 2}}, &r)
	}()
}

func TestAWireErrorIsCutAndKnowsOnlyKnownErrors(t *testing.T) {
	known := KnownErrors{"odd": errOdd}
	w := known.Wire(errors.New(strings.Repeat("é", 1000)))
	assert.LessOrEqual(t, len(w.Msg), MaxErrorText+len("…"))
	// A child may name kinds the grader does not know: they are ignored.
	err := known.Err(&WireError{Msg: "x", Kinds: []string{"forged", "odd"}})
	assert.ErrorIs(t, err, errOdd)
	assert.Nil(t, known.Err(nil))
}

func TestABrokenChannelIsAFailureOfTheChildNeverAScore(t *testing.T) {
	for name, reply := range map[string][]byte{
		"garbage":   []byte("\x00\x00\x00\x05hello"),
		"oversized": binary.BigEndian.AppendUint32(nil, MaxMessage+1),
		"truncated": []byte("\x00\x00\x01\x00abc"),
		"nothing":   nil,
	} {
		c := NewClient(io.Discard, bytes.NewReader(reply))
		c.Diagnose = func(err error) *ChildFailure {
			return &ChildFailure{Status: Crashed, Message: "diagnosed: " + err.Error()}
		}
		func() {
			defer func() {
				f, ok := recover().(*ChildFailure)
				require.True(t, ok, name)
				assert.Equal(t, Crashed, f.Status, name)
				assert.Contains(t, f.Message, "diagnosed", name)
			}()
			var r addResult
			c.Call("add", addArgs{}, &r)
			t.Errorf("%s: the call returned", name)
		}()
	}
}

func TestRunStopsAtAChildFailure(t *testing.T) {
	e := Exercise{ID: "01_a", Checks: []Check{
		{ID: "one", Points: 2, Run: func(*T) {}},
		{ID: "two", Points: 3, Run: func(*T) { panic(&ChildFailure{Status: OutOfMemory, Message: "ran out of memory"}) }},
		{ID: "three", Points: 4, Run: func(*T) {}},
	}}
	// Check "one" is legitimate work: its limit comes from the test's
	// deadline, so load cannot turn it into a time-out.
	res := Run(e, Options{Seed: 1, CheckTimeout: testlimit.Legit(t)})
	assert.Equal(t, OutOfMemory, res.Status)
	assert.Zero(t, res.Points)
	assert.Equal(t, 9, res.MaxPoints)
	assert.Contains(t, res.Message, `check "two" stopped: ran out of memory`)
	require.Len(t, res.Checks, 3)
	assert.NoError(t, res.Validate())
}

func TestClampAndValidate(t *testing.T) {
	assert.Equal(t, 3, Clamp(1000, 3))
	assert.Equal(t, 0, Clamp(-2, 3))
	assert.Equal(t, 2, Clamp(2, 3))
	ok := ExerciseResult{ID: "a", Status: Graded, Points: 2, MaxPoints: 5,
		Checks: []CheckResult{{ID: "x", Points: 2, MaxPoints: 2, Passed: true}, {ID: "y", MaxPoints: 3}}}
	require.NoError(t, ok.Validate())
	forged := ok
	forged.Checks = []CheckResult{{ID: "x", Points: 1000, MaxPoints: 2, Passed: true}, {ID: "y", MaxPoints: 3}}
	forged.Points = 1000
	assert.ErrorContains(t, forged.Validate(), "scores 1000 of 2")
	failedButScored := ok
	failedButScored.Checks = []CheckResult{{ID: "x", Points: 2, MaxPoints: 2}, {ID: "y", MaxPoints: 3}}
	assert.ErrorContains(t, failedButScored.Validate(), "failed but scores 2")
}

// TestPrintSaysWhenTheProgramEndsDuringTheChecks runs, as a notebook's
// grade cell does, checks whose code calls os.Exit(0).
func TestPrintSaysWhenTheProgramEndsDuringTheChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program; not in -short mode")
	}
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("the guard needs /bin/sh")
	}
	cmd := exec.Command("go", "run", "./testdata/exits")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "01_exits: FAILED: the program ended before the checks finished (status 0: does the code call os.Exit?)")
	assert.NotContains(t, string(out), "Score", "no score is printed")
}

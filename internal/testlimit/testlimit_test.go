package testlimit

import (
	"flag"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type fixed struct {
	at time.Time
	ok bool
}

func (f fixed) Deadline() (time.Time, bool) { return f.at, f.ok }

func TestLegitKeepsAMargin(t *testing.T) {
	for _, left := range []time.Duration{10 * time.Minute, time.Minute, 5 * time.Second} {
		margin := left / 10
		if margin > MaxMargin {
			margin = MaxMargin
		}
		assert.Equal(t, left-margin, fromLeft(left), "%v left", left)
	}
	assert.Equal(t, time.Second, fromLeft(0), "a test past its deadline still gets a second")
	assert.Equal(t, NoDeadline, Legit(fixed{}), "no deadline")
	got := Legit(fixed{at: time.Now().Add(10 * time.Minute), ok: true})
	assert.LessOrEqual(t, got, 10*time.Minute-MaxMargin)
	assert.Greater(t, got, 9*time.Minute)
}

// TestLegitReadsTheTestsDeadline: *testing.T is a Deadliner, and its limit
// lies before its deadline.
func TestLegitReadsTheTestsDeadline(t *testing.T) {
	got := Legit(t)
	if d, ok := t.Deadline(); ok {
		assert.Less(t, time.Now().Add(got), d)
	} else {
		assert.Equal(t, NoDeadline, got)
	}
}

// TestFromFlagsReadsTheTimeout: the binary's -timeout (10m by default
// under go test) gives a deadline that far ahead.
func TestFromFlagsReadsTheTimeout(t *testing.T) {
	f := flag.Lookup("test.timeout")
	require.NotNil(t, f)
	want := f.Value.(flag.Getter).Get().(time.Duration)
	before := time.Now()
	d, ok := FromFlags().Deadline()
	after := time.Now()
	if want <= 0 {
		assert.False(t, ok)
		return
	}
	require.True(t, ok)
	assert.False(t, d.Before(before.Add(want)), "%v is at least the timeout ahead", d)
	assert.False(t, d.After(after.Add(want)), "%v is at most the timeout ahead", d)
}

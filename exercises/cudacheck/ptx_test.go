package cudacheck

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A kernel in NVRTC's shape: the loop over the planes, shared memory read
// into the output, barriers.
func coarsenedPTX() fakeKernel {
	return fakeKernel{entry: "coarsened", arrays: []fakeArray{{"_ZZ9coarsenedE1s", 5 * 32 * 32 * 4}}, loop: true, reads: true, stores: true, feeds: true}
}

func TestParsePTXFindsTheLoopSharedArraysAndFlows(t *testing.T) {
	e, err := parsePTX(coarsenedPTX().ptx(), "coarsened")
	require.NoError(t, err)
	assert.Equal(t, []ptxShared{{"_ZZ9coarsenedE1s", 5 * 32 * 32 * 4}}, e.shared)
	require.Len(t, e.loops, 1)
	assert.True(t, e.planeLoop(true))
	assert.True(t, e.sharedFeedsOutput())
	assert.Empty(t, e.audit(false))
	assert.Len(t, e.params, 18)
	_, err = parsePTX(coarsenedPTX().ptx(), "tiled")
	assert.ErrorContains(t, err, "no entry tiled")
}

// Shared memory written and never read, or read without reaching the
// output, does not feed it; without the loop there is no march.
func TestSharedForShowDoesNotFeedTheOutput(t *testing.T) {
	k := coarsenedPTX()
	k.reads, k.feeds = false, false
	e, err := parsePTX(k.ptx(), "coarsened")
	require.NoError(t, err)
	assert.False(t, e.sharedFeedsOutput())
	assert.False(t, e.planeLoop(false), "no load from shared memory in the loop")
	k.reads = true
	e, _ = parsePTX(k.ptx(), "coarsened")
	assert.False(t, e.sharedFeedsOutput(), "read, and dropped")
	assert.True(t, e.planeLoop(true))
	k.feeds, k.loop = true, false
	e, _ = parsePTX(k.ptx(), "coarsened")
	assert.True(t, e.sharedFeedsOutput())
	assert.False(t, e.planeLoop(false), "no loop")
}

// The audit refuses the clock, __device__ state, warp shuffles (outside
// the challenge), functions apart and instructions it does not know, and
// accepts printf.
func TestAuditAllowList(t *testing.T) {
	base := coarsenedPTX().ptx()
	with := func(decl, inst string) string {
		s := strings.Replace(base, ".visible .entry", decl+".visible .entry", 1)
		return strings.Replace(s, "\tret;", inst+"\tret;", 1)
	}
	cases := []struct {
		ptx, want string
		exchange  bool
	}{
		{with("", "\tmov.u64 \t%rd20, %clock64;\n"), "special register %clock64", false},
		{with("", "\tmov.u32 \t%r20, %smid;\n"), "special register %smid", false},
		{with("", "\tmov.u64 \t%rd20, %globaltimer;\n"), "special register %globaltimer", false},
		{with(".global .align 4 .u32 launches;\n", ""), "variable launches in global memory", false},
		{with("", "\tshfl.sync.down.b32 \t%r20, %r1, 1, 31, -1;\n"), "exchanges values between threads with shfl.sync.down.b32", false},
		{with("", "\ttex.3d.v4.f32.s32 \t{%f1, %f2, %f3, %f4}, [tex, {%r1, %r1, %r1, %r1}];\n"), "instruction tex.3d.v4.f32.s32", true},
		{with("", "\tcp.async.ca.shared.global \t[%r10], [%rd3], 4;\n"), "instruction cp.async.ca.shared.global", true},
		{with(".func helper(\n)\n{\n\tret;\n}\n", ""), "function helper apart", false},
		{with("", "\tcall.uni \thelper, ();\n"), "calls a function", false},
	}
	for _, c := range cases {
		e, err := parsePTX(c.ptx, "coarsened")
		require.NoError(t, err, c.want)
		assert.Contains(t, strings.Join(e.audit(c.exchange), "\n"), c.want)
	}
	e, _ := parsePTX(with("", "\tshfl.sync.down.b32 \t%r20, %r1, 1, 31, -1;\n"), "coarsened")
	assert.Empty(t, e.audit(true), "the challenge allows shuffles")
	printf := with(".extern .func  (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n\t.param .b64 vprintf_param_1\n)\n;\n.global .align 1 .b8 $str[3] = {104, 105, 0};\n",
		"\t{\n\t.reg .b32 temp_param_reg;\n\t.param .b64 param0;\n\tst.param.b64 \t[param0], %rd1;\n\tcall.uni (retval0), \n\tvprintf, \n\t(\n\tparam0, \n\tparam1\n\t);\n\t}\n")
	e, err := parsePTX(printf, "coarsened")
	require.NoError(t, err)
	assert.Empty(t, e.audit(false), "printf is allowed")
}

// The loads, stores and barriers are sized from their types and vectors,
// and put in their counters.
func TestCounterOf(t *testing.T) {
	for _, c := range []struct {
		inst    string
		counter int
		bytes   int
	}{
		{"ld.global.f32 %f1, [%rd1]", cntGlobalLoad, 4},
		{"ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1]", cntGlobalLoad, 16},
		{"ldu.global.f64 %fd1, [%rd1]", cntGlobalLoad, 8},
		{"ld.f32 %f1, [%rd1]", cntGenericLoad, 4},
		{"ld.shared.v2.f32 {%f1, %f2}, [%r1]", cntSharedLoad, 8},
		{"st.shared.f32 [%r1], %f1", cntSharedStore, 4},
		{"st.global.f32 [%rd1], %f1", cntGlobalStore, 4},
		{"bar.sync 0", cntBarrier, 1},
		{"barrier.sync 0", cntBarrier, 1},
		{"bar.warp.sync -1", -1, 0},
		{"ld.param.u64 %rd1, [k_param_0]", -1, 0},
		{"ld.local.f32 %f1, [%rd1]", -1, 0},
	} {
		in := parseInst(c.inst, 1)
		k, n := in.counterOf()
		assert.Equal(t, c.counter, k, c.inst)
		assert.Equal(t, c.bytes, n, c.inst)
	}
}

// The instrumented copy adds one counting instruction after each counted
// one, under its guard, and counts the threads; the rest is the original
// text, line for line.
func TestInstrumentPTX(t *testing.T) {
	k := coarsenedPTX()
	src := strings.Replace(k.ptx(), "\tld.global.f32 \t%f1, [%rd3];", "\t@%p2 ld.global.f32 \t%f1, [%rd3];", 1)
	out, err := instrumentPTX(src, "coarsened", 0xdead0000)
	require.NoError(t, err)
	var kept []string
	added := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "%slcnt") || strings.Contains(l, "%slidx") {
			added++
			continue
		}
		kept = append(kept, l)
	}
	assert.Equal(t, src, strings.Join(kept, "\n"), "the original text is kept")
	e, _ := parsePTX(src, "coarsened")
	counted := 0
	for _, in := range e.body {
		if c, n := in.counterOf(); c >= 0 && n > 0 {
			counted++
		}
	}
	assert.Equal(t, counted+12, added, "one per counted instruction, and the registers, the block's copy of the counters and the thread count")
	assert.Contains(t, out, fmt.Sprintf("mov.u64 %%slcnt0, %d;", 0xdead0000))
	assert.Contains(t, out, fmt.Sprintf("and.b32 %%slidx0, %%slidx0, %d;", counterSlots-1))
	assert.Contains(t, out, "\t@%p2 red.global.add.u64 [%slcnt0+0], 4;", "the load's guard")
	assert.Contains(t, out, fmt.Sprintf("red.global.add.u64 [%%slcnt0+%d], 1;", 8*cntBarrier))
	_, err = parsePTX(out, "coarsened")
	require.NoError(t, err, "the instrumented copy parses")
}

// The technique's loads are the book's: each block loads its input tile,
// halo included, clipped to the grid; on a large grid they tend to
// (IN/OUT)³.
func TestTechniqueLoads(t *testing.T) {
	// One axis of 60 points, tiles of 32 (28 outputs): blocks at −2…29,
	// 26…57 and 54…85, clipped: 30 + 32 + 6.
	assert.Equal(t, 68, axisLoads(32, 60))
	// A brute count of the points each block loads.
	for _, tile := range []int{5, 8, 9, 16, 32} {
		for n := 5; n < 120; n += 7 {
			want := 0
			out := tile - 4
			for b := 0; b < (n-3)/out+1; b++ {
				for p := b*out - 2; p < b*out-2+tile; p++ {
					if p >= 0 && p < n {
						want++
					}
				}
			}
			require.Equal(t, want, axisLoads(tile, n), "tile %d, n %d", tile, n)
		}
	}
	big := techniqueLoads(8, [3]int{4004, 4004, 4004})
	assert.InDelta(t, 8.0, big, 0.05, "(8/4)³ on a large grid")
	assert.InDelta(t, 68.0*68*68/(56*56*56), techniqueLoads(32, [3]int{60, 60, 60}), 1e-12)
}

// The PTX travels four bytes to a float and comes back the same.
func TestPackBytes(t *testing.T) {
	for _, s := range []string{"", "a", "ab", "abc", "abcd", "abcde", coarsenedPTX().ptx()} {
		b, err := unpackBytes(packBytes([]byte(s)), len(s))
		require.NoError(t, err)
		assert.Equal(t, s, string(b))
	}
	_, err := unpackBytes(make([]float32, 2), 9)
	assert.Error(t, err)
}

// Any text parses without a panic; whatever parses instruments, and the
// instrumented copy parses too, with the same instructions counted.
func FuzzParsePTX(f *testing.F) {
	f.Add(coarsenedPTX().ptx(), "coarsened")
	f.Add(".visible .entry k(\n)\n{\n\t@%p1 ld.global.v4.f32 {%f1,%f2,%f3,%f4}, [%rd1];\n}\n", "k")
	f.Add(".entry k(\n{\n\tcall.uni (retval0),\n", "k")
	f.Fuzz(func(t *testing.T, ptx, name string) {
		e, err := parsePTX(ptx, name)
		if err != nil {
			return
		}
		_ = e.audit(false)
		_ = e.sharedFeedsOutput()
		_ = e.planeLoop(true)
		out, err := instrumentPTX(ptx, name, 1<<40)
		if err != nil {
			t.Fatalf("parses but does not instrument: %v", err)
		}
		if _, err := parsePTX(out, name); err != nil {
			t.Fatalf("the instrumented copy does not parse: %v", err)
		}
	})
}

package cudacheck

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// What the grader reads in the PTX that NVRTC made of a student's file:
// the entry's instructions, its loops, its shared arrays, which registers
// the values loaded from shared memory flow into, and the instrumented copy
// that counts the loads, stores and barriers each thread executes (the
// counting run of the method check).

// ptxInst is one instruction of a PTX function, or a label.
type ptxInst struct {
	label string   // "$L__BB0_2" for a label line, else ""
	guard string   // "@%p1", "@!%p1" or ""
	op    string   // "ld.global.nc.f32"
	args  []string // operands, as written
	text  string   // the line, trimmed
	line  int      // 1-based line of the PTX text
}

// root is the opcode's first part: "ld" of "ld.global.f32".
func (in ptxInst) root() string {
	r, _, _ := strings.Cut(in.op, ".")
	return r
}

func (in ptxInst) has(part string) bool {
	return slices.Contains(strings.Split(in.op, ".")[1:], part)
}

// ptxShared is a shared array the module declares.
type ptxShared struct {
	name  string
	bytes int
}

// ptxEntry is the student's kernel as NVRTC wrote it.
type ptxEntry struct {
	name     string
	body     []ptxInst
	regs     map[string]bool // declared register prefixes ("%r", "%rd") and names ("%SP")
	shared   []ptxShared     // the module's shared arrays
	funcs    []string        // functions the module defines besides its entries
	extern   []string        // functions it declares only (vprintf)
	params   []string        // the entry's parameter names
	globals  []string        // the module's variables in global memory (__device__), printf's strings aside
	inLoop   []bool          // per instruction of body: inside some loop
	loops    [][2]int        // [first, last] instruction of each loop (a backward branch)
	bodyLine int             // line of the entry's opening brace
}

var (
	entryRE  = regexp.MustCompile(`^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([A-Za-z_$][\w$]*)\s*\(`)
	funcRE   = regexp.MustCompile(`^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.func\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)`)
	sharedRE = regexp.MustCompile(`^\s*(?:\.extern\s+)?\.shared\s+(?:\.align\s+\d+\s+)?\.([a-z]+)(\d+)\s+([A-Za-z_$][\w$]*)\s*(?:\[(\d*)\])?`)
	regRE    = regexp.MustCompile(`^\s*\.reg\s+\.\w+\s+(%[A-Za-z_$][\w$]*?)(<\d+>)?\s*;`)
	paramRE  = regexp.MustCompile(`\.param\s+\.\w+(?:\s+\.ptr[\w.]*)?(?:\s+\.align\s+\d+)?\s+([A-Za-z_$][\w$]*)`)
	labelRE  = regexp.MustCompile(`^([A-Za-z_$][\w$]*):$`)
	guardRE  = regexp.MustCompile(`^@!?%[A-Za-z_$][\w$]*$`)
	globalRE = regexp.MustCompile(`^\s*(?:\.visible\s+|\.extern\s+|\.weak\s+)*\.global\s+[^;=]*?([A-Za-z_$][\w$]*)\s*(?:\[\d*\])?\s*(?:;|=)`)
	specRE   = regexp.MustCompile(`%[A-Za-z_$][\w$]*(?:\.[xyz])?`)
)

// parsePTX finds the entry called name in the PTX text and parses its
// body, the module's shared arrays and its other functions.
func parsePTX(ptx, name string) (*ptxEntry, error) {
	lines := strings.Split(ptx, "\n")
	e := &ptxEntry{name: name, regs: map[string]bool{}}
	start := -1
	for i, l := range lines {
		l = stripComment(l)
		if m := sharedRE.FindStringSubmatch(l); m != nil && !strings.HasPrefix(strings.TrimSpace(l), "ld") {
			size, _ := strconv.Atoi(m[2])
			count := 1
			if m[4] != "" {
				count, _ = strconv.Atoi(m[4])
			} else if strings.Contains(l, "[]") {
				count = 0 // extern: dynamic shared memory
			}
			e.shared = append(e.shared, ptxShared{name: m[3], bytes: count * max(size/8, 1)})
			continue
		}
		if m := globalRE.FindStringSubmatch(l); m != nil && !strings.HasPrefix(m[1], "$str") {
			e.globals = append(e.globals, m[1])
			continue
		}
		if m := entryRE.FindStringSubmatch(l); m != nil {
			if m[1] == name && start < 0 {
				start = i
			}
			continue
		}
		if m := funcRE.FindStringSubmatch(l); m != nil {
			if strings.Contains(l, ".extern") {
				e.extern = append(e.extern, m[1])
			} else {
				e.funcs = append(e.funcs, m[1])
			}
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("the PTX has no entry %s", name)
	}
	// The parameters, up to the line that opens the body.
	open := -1
	for i := start; i < len(lines); i++ {
		l := stripComment(lines[i])
		for _, m := range paramRE.FindAllStringSubmatch(l, -1) {
			e.params = append(e.params, m[1])
		}
		if strings.TrimSpace(l) == "{" {
			open = i
			break
		}
	}
	if open < 0 {
		return nil, fmt.Errorf("the PTX entry %s has no body", name)
	}
	e.bodyLine = open + 1
	depth := 0
	var pending []string // a statement that spans lines (a call), up to its ';'
	for i := open; i < len(lines); i++ {
		l := strings.TrimSpace(stripComment(lines[i]))
		if len(pending) == 0 {
			switch l {
			case "{":
				depth++
				continue
			case "}":
				depth--
				if depth == 0 {
					e.findLoops()
					return e, nil
				}
				continue
			case "":
				continue
			}
			if m := labelRE.FindStringSubmatch(l); m != nil {
				e.body = append(e.body, ptxInst{label: m[1], text: l, line: i + 1})
				continue
			}
			if strings.HasPrefix(l, ".") && !strings.Contains(l, ";") {
				continue // .loc and .file (line information) end without ';'
			}
		}
		if l == "" {
			continue
		}
		pending = append(pending, l)
		if !strings.HasSuffix(l, ";") {
			continue
		}
		for _, st := range strings.Split(strings.Join(pending, " "), ";") {
			st = strings.TrimSpace(st)
			if st == "" {
				continue
			}
			if m := regRE.FindStringSubmatch(st + ";"); m != nil {
				e.regs[m[1]] = true
				continue
			}
			if strings.HasPrefix(st, ".") {
				continue // .loc, .pragma, .local, .param and other directives
			}
			e.body = append(e.body, parseInst(st, i+1))
		}
		pending = pending[:0]
	}
	return nil, fmt.Errorf("the PTX entry %s does not end", name)
}

func stripComment(l string) string {
	if i := strings.Index(l, "//"); i >= 0 {
		return l[:i]
	}
	return l
}

// parseInst parses "@%p1 ld.global.f32 %f1, [%rd4+8]".
func parseInst(s string, line int) ptxInst {
	in := ptxInst{text: s, line: line}
	f := strings.Fields(s)
	if len(f) > 0 && guardRE.MatchString(f[0]) {
		in.guard = f[0]
		s = strings.TrimSpace(strings.TrimPrefix(s, f[0]))
	}
	op, rest, _ := strings.Cut(s, " ")
	if i := strings.IndexAny(op, "\t"); i >= 0 {
		op, rest = op[:i], op[i:]+" "+rest
	}
	in.op = op
	in.args = splitArgs(strings.TrimSpace(rest))
	return in
}

// splitArgs splits operands at the commas outside brackets and braces.
func splitArgs(s string) []string {
	var out []string
	depth, from := 0, 0
	for i, r := range s {
		switch r {
		case '[', '{', '(':
			depth++
		case ']', '}', ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[from:i]))
				from = i + 1
			}
		}
	}
	if t := strings.TrimSpace(s[from:]); t != "" {
		out = append(out, t)
	}
	return out
}

// findLoops marks the instructions between a label and a later branch back
// to it.
func (e *ptxEntry) findLoops() {
	at := map[string]int{}
	for i, in := range e.body {
		if in.label != "" {
			at[in.label] = i
		}
	}
	e.inLoop = make([]bool, len(e.body))
	for i, in := range e.body {
		if in.root() != "bra" || len(in.args) == 0 {
			continue
		}
		if t, ok := at[strings.TrimSpace(in.args[0])]; ok && t <= i {
			e.loops = append(e.loops, [2]int{t, i})
			for k := t; k <= i; k++ {
				e.inLoop[k] = true
			}
		}
	}
}

// Memory spaces of a load or store.
const (
	spaceGlobal  = "global"
	spaceShared  = "shared"
	spaceGeneric = "generic"
	spaceOther   = "other" // local, param, const
)

// space returns the state space of a load or store ("" for others).
func (in ptxInst) space() string {
	switch in.root() {
	case "ld", "ldu", "st":
	default:
		return ""
	}
	parts := strings.Split(in.op, ".")[1:]
	for _, p := range parts {
		switch {
		case p == "global":
			return spaceGlobal
		case p == "shared" || strings.HasPrefix(p, "shared::"):
			return spaceShared
		case p == "local" || p == "param" || p == "const" || strings.HasPrefix(p, "param::"):
			return spaceOther
		}
	}
	return spaceGeneric
}

// typeBytes are the sizes of PTX's scalar types.
var typeBytes = map[string]int{
	"b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "bf16": 2,
	"b32": 4, "u32": 4, "s32": 4, "f32": 4, "f16x2": 4, "bf16x2": 4,
	"b64": 8, "u64": 8, "s64": 8, "f64": 8, "b128": 16,
}

// bytes returns how many bytes a load or store moves per thread.
func (in ptxInst) bytes() int {
	n, size := 1, 0
	for _, p := range strings.Split(in.op, ".")[1:] {
		switch {
		case p == "v2":
			n = 2
		case p == "v4":
			n = 4
		case p == "v8":
			n = 8
		case typeBytes[p] > 0:
			size = typeBytes[p]
		}
	}
	return n * size
}

// isBarrier reports a block-wide barrier (__syncthreads and its kin; not
// __syncwarp, bar.warp.sync).
func (in ptxInst) isBarrier() bool {
	switch in.root() {
	case "bar":
		return !in.has("warp")
	case "barrier":
		return !in.has("cluster")
	}
	return false
}

// The instructions the method check knows, by root: arithmetic, logic,
// conversions, moves, comparisons, branches, and the loads, stores and
// barriers it counts. Anything else it cannot account for.
var knownRoots = map[string]bool{}

func init() {
	for _, r := range strings.Fields(`add sub mul mad mad24 mul24 sad fma div rem abs neg min max setp selp set slct
		mov cvt cvta and or xor not cnot shl shr bfe bfi brev bfind popc clz prmt lop3 shf rcp sqrt rsqrt
		ex2 lg2 sin cos tanh copysign testp bra ret exit membar fence ld ldu st bar barrier call isspacep`) {
		knownRoots[r] = true
	}
}

// exchangeRoots move values between threads without shared memory; the
// challenge allows them, the chapter's exercises do not.
var exchangeRoots = map[string]bool{"shfl": true, "vote": true, "activemask": true, "redux": true, "match": true}

// allowedSpecial are the special registers a kernel may read: its place in
// the launch. A kernel that reads the clock, a timer or the SM it runs on
// could tell a counting or sanitizer run from a graded one.
var allowedSpecial = map[string]bool{}

func init() {
	for _, r := range []string{"%tid", "%ntid", "%ctaid", "%nctaid"} {
		allowedSpecial[r] = true
		for _, a := range []string{".x", ".y", ".z"} {
			allowedSpecial[r+a] = true
		}
	}
	allowedSpecial["%laneid"] = true
}

// declared reports whether tok is a register the function declares.
func (e *ptxEntry) declared(tok string) bool {
	if e.regs[tok] {
		return true
	}
	for p := len(tok) - 1; p >= 1; p-- {
		if tok[p] < '0' || tok[p] > '9' {
			return p < len(tok)-1 && e.regs[tok[:p+1]]
		}
	}
	return false
}

// audit lists what the method check cannot account for in the entry:
// instructions it does not know (or, unless exchange, that move values
// between threads outside shared memory), special registers other than the
// launch's, and calls of functions other than printf's.
func (e *ptxEntry) audit(exchange bool) []string {
	var problems []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			problems = append(problems, s)
		}
	}
	for _, g := range e.globals {
		add(fmt.Sprintf("it declares the variable %s in global memory (__device__): a kernel that keeps state between launches could tell a counting or sanitizer run from a graded one", g))
	}
	for _, f := range e.funcs {
		add(fmt.Sprintf("the module defines the function %s apart from the kernel (__noinline__ or recursion): the counting run counts the kernel's own instructions only; let the compiler inline it", f))
	}
	for _, in := range e.body {
		if in.label != "" {
			continue
		}
		r := in.root()
		switch {
		case exchangeRoots[r] && !exchange:
			add(fmt.Sprintf("it exchanges values between threads with %s (line %d of the PTX), not through shared memory, which is the technique this exercise asks for", in.op, in.line))
		case exchangeRoots[r]:
		case !knownRoots[r]:
			add(fmt.Sprintf("it uses the instruction %s (line %d of the PTX), which the counting run cannot account for", in.op, in.line))
		case r == "call":
			if !slices.ContainsFunc(in.args, func(a string) bool { return strings.Contains(a, "vprintf") }) {
				add(fmt.Sprintf("it calls a function (line %d of the PTX) other than printf", in.line))
			}
		}
		for _, a := range in.args {
			for _, tok := range specRE.FindAllString(a, -1) {
				if e.declared(tok) || e.declared(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(tok, ".x"), ".y"), ".z")) {
					continue
				}
				if !allowedSpecial[tok] {
					add(fmt.Sprintf("it reads the special register %s (line %d of the PTX): a kernel that reads the clock, a timer or the multiprocessor it runs on could tell a counting or sanitizer run from a graded one; only %%tid, %%ntid, %%ctaid, %%nctaid and %%laneid are allowed", tok, in.line))
				}
			}
		}
	}
	return problems
}

// regsOf returns the registers named in an operand ("%f1", "[%rd4+8]",
// "{%f1, %f2}").
func (e *ptxEntry) regsOf(a string) []string {
	var out []string
	for _, tok := range specRE.FindAllString(a, -1) {
		if e.declared(tok) {
			out = append(out, tok)
		}
	}
	return out
}

// defsUses returns the registers an instruction writes and reads.
func (e *ptxEntry) defsUses(in ptxInst) (defs, uses []string) {
	if len(in.args) == 0 {
		return nil, nil
	}
	for _, g := range []string{strings.TrimPrefix(strings.TrimPrefix(in.guard, "@"), "!")} {
		if g != "" {
			uses = append(uses, g)
		}
	}
	switch in.root() {
	case "st", "bar", "barrier", "bra", "ret", "exit", "membar", "fence", "call":
		for _, a := range in.args {
			uses = append(uses, e.regsOf(a)...)
		}
		return nil, uses
	}
	first := in.args[0]
	for _, d := range strings.Split(first, "|") {
		defs = append(defs, e.regsOf(d)...)
	}
	for _, a := range in.args[1:] {
		uses = append(uses, e.regsOf(a)...)
	}
	return defs, uses
}

// taintFrom returns the registers whose value may derive (through any
// instruction, flow-insensitively) from a register defined by an
// instruction seed selects.
func (e *ptxEntry) taintFrom(seed func(ptxInst) bool) map[string]bool {
	t := map[string]bool{}
	for _, in := range e.body {
		if in.label == "" && seed(in) {
			defs, _ := e.defsUses(in)
			for _, d := range defs {
				t[d] = true
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, in := range e.body {
			if in.label != "" {
				continue
			}
			defs, uses := e.defsUses(in)
			hit := slices.ContainsFunc(uses, func(u string) bool { return t[u] })
			if !hit {
				continue
			}
			for _, d := range defs {
				if !t[d] {
					t[d] = true
					changed = true
				}
			}
		}
	}
	return t
}

// storedValue returns the operand a store writes (its last).
func (in ptxInst) storedValue() string {
	if len(in.args) < 2 {
		return ""
	}
	return in.args[len(in.args)-1]
}

// isOutputStore is a store that may write the output (global or generic).
func (in ptxInst) isOutputStore() bool {
	return in.root() == "st" && (in.space() == spaceGlobal || in.space() == spaceGeneric)
}

// sharedFeedsOutput reports whether a value loaded from shared memory
// flows into a value the kernel stores to global memory.
func (e *ptxEntry) sharedFeedsOutput() bool {
	t := e.taintFrom(func(in ptxInst) bool { return in.root() == "ld" && in.space() == spaceShared })
	for _, in := range e.body {
		if in.isOutputStore() && slices.ContainsFunc(e.regsOf(in.storedValue()), func(r string) bool { return t[r] }) {
			return true
		}
	}
	return false
}

// planeLoop reports whether some loop holds a store of the output, a load
// from shared memory and a barrier (and, with stores, a store to shared
// memory): the loop over the planes of the chapter's z-marching kernels.
func (e *ptxEntry) planeLoop(stores bool) bool {
	for _, l := range e.loops {
		var out, lds, sts, bar bool
		for _, in := range e.body[l[0] : l[1]+1] {
			out = out || in.isOutputStore()
			lds = lds || (in.root() == "ld" && in.space() == spaceShared)
			sts = sts || (in.root() == "st" && in.space() == spaceShared)
			bar = bar || in.isBarrier()
		}
		if out && lds && bar && (sts || !stores) {
			return true
		}
	}
	return false
}

// arrayUse reports whether the shared array sym is read and written: a
// load or store whose address names it or derives from a register that
// does.
func (e *ptxEntry) arrayUse(sym string) (read, written bool) {
	names := func(a string) bool {
		return regexp.MustCompile(`(^|[^\w$])` + regexp.QuoteMeta(sym) + `($|[^\w$])`).MatchString(a)
	}
	t := e.taintFrom(func(in ptxInst) bool {
		return in.root() != "ld" && in.root() != "st" && slices.ContainsFunc(in.args[min(1, len(in.args)):], names)
	})
	for _, in := range e.body {
		if in.space() != spaceShared || len(in.args) < 2 {
			continue
		}
		addr := in.args[1]
		if in.root() == "st" {
			addr = in.args[0]
		}
		if !names(addr) && !slices.ContainsFunc(e.regsOf(addr), func(r string) bool { return t[r] }) {
			continue
		}
		if in.root() == "st" {
			written = true
		} else {
			read = true
		}
	}
	return read, written
}

// sharedArray returns the module's shared array declared in the source as
// name (NVRTC mangles a kernel's static array as _ZZ…E<len><name>).
func (e *ptxEntry) sharedArray(name string) (ptxShared, bool) {
	for _, s := range e.shared {
		if s.name == name || strings.HasSuffix(s.name, strconv.Itoa(len(name))+name) {
			return s, true
		}
	}
	return ptxShared{}, false
}

// The counters of the counting run, in this order in the counters' buffer
// (one 64-bit word each).
const (
	cntGlobalLoad  = iota // bytes loaded from global memory (ld.global, ld.global.nc, ldu)
	cntGlobalStore        // bytes stored to global or generic memory
	cntSharedLoad         // bytes loaded from shared memory
	cntSharedStore        // bytes stored to shared memory
	cntBarrier            // barriers executed, per thread
	cntThreads            // threads that started
	cntGenericLoad        // bytes loaded through generic addresses (counted as global)
	counters
)

// counterSlots is how many copies of the counters the counting run keeps,
// a block adding to the copy its index picks, so that the atomic adds of a
// grid of 512³ points spread over the memory's slices; the child sums them.
// A copy takes slotWords 64-bit words.
const (
	counterSlots = 1024
	slotWords    = 8
)

// counterOf returns the counter an instruction adds to and by how much
// (−1: none).
func (in ptxInst) counterOf() (int, int) {
	switch {
	case in.label != "":
		return -1, 0
	case in.isBarrier():
		return cntBarrier, 1
	}
	switch in.root() {
	case "ld", "ldu":
		switch in.space() {
		case spaceGlobal:
			return cntGlobalLoad, in.bytes()
		case spaceShared:
			return cntSharedLoad, in.bytes()
		case spaceGeneric:
			return cntGenericLoad, in.bytes()
		}
	case "st":
		switch in.space() {
		case spaceGlobal, spaceGeneric:
			return cntGlobalStore, in.bytes()
		case spaceShared:
			return cntSharedStore, in.bytes()
		}
	}
	return -1, 0
}

// instrumentPTX returns a copy of ptx whose entry name adds, after each
// load, store and barrier it counts, what it moved to a counter at the
// device address addr (counterSlots copies of slotWords 64-bit words, the
// counters first, see cntGlobalLoad; a block adds to one copy), under
// the instruction's own guard, and counts its threads at the start. The
// rest of the text is unchanged, so that the counting build computes what
// the graded one does.
func instrumentPTX(ptx, name string, addr uint64) (string, error) {
	e, err := parsePTX(ptx, name)
	if err != nil {
		return "", err
	}
	after := map[int][]string{} // line → instructions added after it
	for _, in := range e.body {
		c, n := in.counterOf()
		if c < 0 || n == 0 {
			continue
		}
		g := ""
		if in.guard != "" {
			g = in.guard + " "
		}
		after[in.line] = append(after[in.line], fmt.Sprintf("\t%sred.global.add.u64 [%%slcnt0+%d], %d;", g, 8*c, n))
	}
	lines := strings.Split(ptx, "\n")
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
		if i+1 == e.bodyLine {
			// The block's copy: (ctaid.x + 977·ctaid.y + 131·ctaid.z) mod
			// counterSlots.
			fmt.Fprintf(&b, "\n\t.reg .b64 %%slcnt<2>;\n\t.reg .b32 %%slidx<3>;"+
				"\n\tmov.u32 %%slidx0, %%ctaid.x;\n\tmov.u32 %%slidx1, %%ctaid.y;\n\tmad.lo.u32 %%slidx0, %%slidx1, 977, %%slidx0;"+
				"\n\tmov.u32 %%slidx2, %%ctaid.z;\n\tmad.lo.u32 %%slidx0, %%slidx2, 131, %%slidx0;\n\tand.b32 %%slidx0, %%slidx0, %d;"+
				"\n\tmul.wide.u32 %%slcnt1, %%slidx0, %d;\n\tmov.u64 %%slcnt0, %d;\n\tadd.u64 %%slcnt0, %%slcnt0, %%slcnt1;"+
				"\n\tred.global.add.u64 [%%slcnt0+%d], 1;", counterSlots-1, 8*slotWords, addr, 8*cntThreads)
		}
		for _, a := range after[i+1] {
			b.WriteByte('\n')
			b.WriteString(a)
		}
	}
	return b.String(), nil
}

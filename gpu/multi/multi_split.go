package multi

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"stencillab.dev/gpu"
	"stencillab.dev/lab"
	"stencillab.dev/lab/halo"
)

// rendezvousTimeout bounds how long the ranks of a launch wait for each
// other at the rendezvous.
const rendezvousTimeout = 2 * time.Minute

// split is the gpu backend's splitter (lab.RegisterSplitter): it runs a
// lab.Run whose Split names devices. In one process it drives every device
// of Split.Devices. Under mpirun or Slurm (processRank) each process is one
// rank of the launch, on the device localDevice picks, and the ranks meet
// at the rendezvous: when Split.Devices names several GPUs (those of the
// host), or the launcher left each process one (CUDA_VISIBLE_DEVICES).
// One device without such a binding is a run of each process on its own,
// as the single-domain check of a split asks.
func split(r lab.Run) (lab.Result, error) {
	pr, multi, err := processRank(getenv)
	if err != nil {
		return lab.Result{}, err
	}
	if multi && (len(r.Split.Devices) > 1 || oneVisible(getenv)) {
		return splitProcess(r, pr)
	}
	return splitRunWith(r, oneProcess(len(r.Split.Devices)), nil, nil)
}

// oneVisible reports whether CUDA_VISIBLE_DEVICES leaves the process one
// GPU.
func oneVisible(getenv func(string) string) bool {
	v := strings.TrimSpace(getenv("CUDA_VISIBLE_DEVICES"))
	return v != "" && !strings.Contains(v, ",")
}

// seq returns 0 … n−1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// splitProcess runs one rank of a launch over several processes.
func splitProcess(r lab.Run, pr ProcessRank) (lab.Result, error) {
	addr, err := rendezvousAddr(getenv, pr)
	if err != nil {
		return lab.Result{}, err
	}
	w := world{size: pr.Size, local: []int{pr.Rank}, devices: []int{localDevice(getenv, pr, r.Split.Devices)}}
	var rdv *Rendezvous
	getID := func() (ncclID, error) {
		var id ncclID
		if pr.Rank == 0 {
			if id, err = newNCCLID(); err != nil {
				return id, err
			}
			if rdv, err = Listen(addr, pr.Size); err != nil {
				return id, err
			}
			return id, rdv.Accept(id[:], rendezvousTimeout)
		}
		if err := loadNCCL(); err != nil {
			return id, err
		}
		var b []byte
		if rdv, b, err = Dial(addr, pr.Rank, pr.Size, rendezvousTimeout); err != nil {
			return id, err
		}
		if len(b) != len(id) {
			return id, rdvErr("rank 0 sent an id of %d bytes, not %d", len(b), len(id))
		}
		copy(id[:], b)
		return id, nil
	}
	defer func() {
		if rdv != nil {
			rdv.Close()
		}
	}()
	if pr.Rank != 0 && getenv("STENCIL_ALL_RANKS_PRINT") == "" {
		// Only rank 0 speaks: the others' reports would repeat its own.
		// The descriptor itself: the command may hold os.Stdout already.
		if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
			silenceStdout(null)
		}
	}
	return splitRunWith(r, w, getID, func(res *lab.Result, m *Multi, times [][]RankTimes) error {
		return shareResult(rdv, res, m, times)
	})
}

// splitRunWith runs the ranks w.local of a split; share, for a launch of
// several processes, brings the other ranks' points and times together.
func splitRunWith(r lab.Run, w world, getID func() (ncclID, error),
	share func(res *lab.Result, m *Multi, times [][]RankTimes) error) (lab.Result, error) {
	if r.Kernel != nil {
		return lab.Result{}, fmt.Errorf("gpu: run %s split over GPUs: a kernel of one's own runs on the simulator only", r.Step)
	}
	s, err := lab.LookupStep3(r.Step)
	if err != nil {
		return lab.Result{}, err
	}
	if !lab.OnGPU(s) {
		return lab.Result{}, fmt.Errorf("gpu: %s has no device code and cannot run on GPUs: %w", s.Name, lab.ErrUnknown)
	}
	cfg, err := s.Resolve(r.Config)
	if err != nil {
		return lab.Result{}, err
	}
	src := r.Src
	if src == nil {
		if src, err = lab.NewGrid3[float32](r.NZ, r.NY, r.NX); err != nil {
			return lab.Result{}, fmt.Errorf("gpu: run %s: %w", s.Name, err)
		}
		src.FillRandom(r.Seed)
	}
	dst := r.Dst
	if dst == nil {
		dst = src.Clone()
	}
	if err := lab.CheckSweep(dst, src); err != nil {
		return lab.Result{}, fmt.Errorf("gpu: run %s: %w", s.Name, err)
	}
	overlap, err := LookupOverlap(r.Split.Overlap)
	if err != nil {
		return lab.Result{}, err
	}
	m, err := newMulti(MultiConfig{Step: s.Name, Options: gpu.Options{Tile: cfg.Tile, Block: [3]int{cfg.Block.X, cfg.Block.Y, cfg.Block.Z}},
		Devices: r.Split.Devices, PY: r.Split.PY, Overlap: overlap, NZ: src.NZ, NY: src.NY, NX: src.NX}, w, getID)
	if err != nil {
		return lab.Result{}, err
	}
	defer m.Close()
	per := m.StepsPerPass()
	steps := r.Steps
	if steps <= 0 {
		steps = per
	}
	if steps%per != 0 {
		return lab.Result{}, fmt.Errorf("gpu: run %s: %d time steps is not a multiple of the %d a pass of %s advances", s.Name, steps, per, s.Name)
	}
	if err := m.Load(src); err != nil {
		return lab.Result{}, err
	}
	res := lab.Result{Step: s.Name, Backend: lab.GPU, Device: m.Device(), NZ: src.NZ, NY: src.NY, NX: src.NX,
		Config: cfg, Steps: steps, Src: src, Out: dst, Comm: commStats(m.Parts(), per, steps/per)}
	if g, err := m.Geometry(); err == nil {
		res.Launch.Geometry = g.Lab()
	}
	var times [][]RankTimes
	for range max(r.Reps, 1) {
		start := time.Now()
		t, err := m.Run(r.C, steps)
		wall := elapsedMs(start)
		if err != nil {
			res.Err = err
			return res, err
		}
		times = append(times, t)
		res.Wall = append(res.Wall, wall)
	}
	if err := m.Gather(dst, steps); err != nil {
		return res, err
	}
	if share != nil {
		if err := share(&res, m, times); err != nil {
			return res, err
		}
	}
	for _, t := range times {
		ms, rt := rankTimes(t)
		res.Millis = append(res.Millis, ms)
		res.RankTimes = append(res.RankTimes, rt)
	}
	if n := len(res.Millis); n > 0 {
		res.Launch.Millis = res.Millis[n-1]
	}
	lastRun.Lock()
	lastRun.times = times
	lastRun.Unlock()
	return res, nil
}

// rankTimes returns a run's time, the slowest rank's, and each rank's
// compute, exchange and wait for the slowest, indexed by rank.
func rankTimes(t []RankTimes) (float64, []lab.RankTime) {
	slowest := 0.0
	for _, r := range t {
		slowest = math.Max(slowest, r.Total)
	}
	out := make([]lab.RankTime, len(t))
	for _, r := range t {
		if r.Rank >= 0 && r.Rank < len(out) {
			out[r.Rank] = lab.RankTime{Compute: r.Compute, Exchange: r.Exchange, Wait: slowest - r.Total}
		}
	}
	return slowest, out
}

// commStats counts what each rank sends per exchange: one message per
// neighbour of h planes (rows).
func commStats(parts []halo.Part, per, exchanges int) *lab.CommStats {
	if len(parts) == 0 {
		return nil
	}
	s := &lab.CommStats{Ranks: len(parts), PZ: parts[0].PZ, PY: parts[0].PY, Halo: parts[0].Halo,
		StepsPerExchange: per, Exchanges: exchanges}
	if len(parts) == 1 {
		s.Exchanges = 0
	}
	for _, p := range parts {
		var msgs int64
		for _, nb := range []int{p.Down, p.Up, p.South, p.North} {
			if nb >= 0 {
				msgs++
			}
		}
		n := int64(halo.HaloLen(p)) * 4
		s.Messages = append(s.Messages, msgs)
		s.Bytes = append(s.Bytes, n)
		s.RecvBytes = append(s.RecvBytes, n)
	}
	return s
}

// lastRun keeps the per-pass time lines of the last split run, for
// LastTimeline.
var lastRun struct {
	sync.Mutex
	times [][]RankTimes
}

// LastTimeline returns the per-rank, per-pass times of each repetition of
// the last split run in this process (indexed [repetition][local rank]),
// for a time line of one step; nil before any.
func LastTimeline() [][]RankTimes {
	lastRun.Lock()
	defer lastRun.Unlock()
	return lastRun.times
}

// shareResult brings a launch's ranks together after their runs: every
// rank sends rank 0 its times and its owned points; rank 0 fills them into
// the result and sends the whole result back, so that every process holds
// the same output and times.
func shareResult(rdv *Rendezvous, res *lab.Result, m *Multi, times [][]RankTimes) error {
	if rdv == nil {
		return rdvErr("no rendezvous")
	}
	mine, err := json.Marshal(times)
	if err != nil {
		return err
	}
	all, err := rdv.Gather(append(encodeOwned(res.Out, m.ranks[0].p), mine...))
	if err != nil {
		return err
	}
	var merged [][]RankTimes
	if all != nil {
		merged = make([][]RankTimes, len(times))
		for rank, b := range all {
			p := m.parts[rank]
			n := ownedBytes(p)
			if len(b) < n {
				return rdvErr("rank %d sent %d bytes, fewer than its %d owned", rank, len(b), n)
			}
			decodeOwned(res.Out, p, b[:n])
			var t [][]RankTimes
			if err := json.Unmarshal(b[n:], &t); err != nil || len(t) != len(times) {
				return rdvErr("rank %d's times: %v", rank, err)
			}
			for rep := range merged {
				merged[rep] = append(merged[rep], t[rep]...)
			}
		}
	}
	var payload []byte
	if all != nil {
		t, err := json.Marshal(merged)
		if err != nil {
			return err
		}
		payload = append(encodeGrid(res.Out), t...)
	}
	back, err := rdv.Broadcast(payload)
	if err != nil {
		return err
	}
	n := len(res.Out.Data) * 4
	if len(back) < n {
		return rdvErr("rank 0 sent %d bytes, fewer than the grid's %d", len(back), n)
	}
	decodeGrid(res.Out, back[:n])
	var t [][]RankTimes
	if err := json.Unmarshal(back[n:], &t); err != nil {
		return rdvErr("the times from rank 0: %v", err)
	}
	copy(times, t)
	return nil
}

// ownedBytes is the size of a part's owned points as encodeOwned writes
// them: whole rows of its owned planes.
func ownedBytes(p halo.Part) int { return (p.Z1 - p.Z0) * (p.Y1 - p.Y0) * p.NX * 4 }

func encodeOwned(g *lab.Grid3[float32], p halo.Part) []byte {
	b := make([]byte, 0, ownedBytes(p))
	for z := p.Z0; z < p.Z1; z++ {
		for y := p.Y0; y < p.Y1; y++ {
			o := g.Index(z, y, 0)
			b = appendFloats(b, g.Data[o:o+p.NX])
		}
	}
	return b
}

func decodeOwned(g *lab.Grid3[float32], p halo.Part, b []byte) {
	for z := p.Z0; z < p.Z1; z++ {
		for y := p.Y0; y < p.Y1; y++ {
			o := g.Index(z, y, 0)
			for x := 1; x < p.NX-1; x++ {
				g.Data[o+x] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*x:]))
			}
			b = b[4*p.NX:]
		}
	}
}

func encodeGrid(g *lab.Grid3[float32]) []byte {
	return appendFloats(make([]byte, 0, 4*len(g.Data)), g.Data)
}

func decodeGrid(g *lab.Grid3[float32], b []byte) {
	for i := range g.Data {
		g.Data[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}

func appendFloats(b []byte, f []float32) []byte {
	for _, v := range f {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func init() { lab.RegisterSplitter(lab.GPU, split) }

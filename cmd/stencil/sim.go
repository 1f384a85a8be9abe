package main

import (
	"fmt"
	"strings"

	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// The simulator's part of `stencil run`'s summary: the traffic the
// simulator counted and the measured arithmetic intensity next to the
// model's.

// simFields turns the Stats of the last launch into summary lines and JSON
// fields.
func simFields(res lab.Result) []field {
	st, step, n := res.Stats, res.Step, res.NX
	bytes := func(key, label string, b, elems int64) field {
		return field{Key: key, Label: label, Value: b, Text: fmt.Sprintf("%d B (%d elements)", b, elems)}
	}
	fs := []field{
		{Key: "grid", Label: "Grid of blocks", Value: st.Grid.Shape(),
			Text: fmt.Sprintf("%d×%d×%d = %s, %d threads in all", st.Grid.X, st.Grid.Y, st.Grid.Z, plural(st.Grid.Size(), "block"), st.Threads)},
		{Key: "block", Label: "Block of threads", Value: st.Block.Shape(),
			Text: fmt.Sprintf("%s = %d threads, %d B of shared memory", st.Block.Shape(), st.Block.Size(), st.SharedBytesPerBlock)},
		bytes("global_load_bytes", "Global loads", st.GlobalLoadBytes, st.GlobalLoads),
		bytes("global_store_bytes", "Global stores", st.GlobalStoreBytes, st.GlobalStores),
		bytes("shared_load_bytes", "Shared loads", st.SharedLoadBytes, st.SharedLoads),
		bytes("shared_store_bytes", "Shared stores", st.SharedStoreBytes, st.SharedStores),
		{Key: "flops", Label: "Flops", Value: st.Flops, Text: fmt.Sprint(st.Flops)},
	}
	measured := st.OpPerByte()
	fs = append(fs, field{Key: "op_per_byte", Label: "Intensity", Value: measured,
		Text: fmt.Sprintf("%.4f OP/B measured (flops over global load bytes)", measured)})
	T := res.Config.Tile
	if model, err := lab.IntensityN(step, n, T); err == nil {
		far, _ := lab.Cost(step, max(T, 3))
		slides := far.OpPerByte()
		fs = append(fs, field{Key: "model_op_per_byte", Label: "Model intensity", Value: model,
			Text: fmt.Sprintf("%.4f OP/B on %d³ with edge blocks; %.2f for a block far from the edges", model, n, slides)})
	}
	return append(fs, warpFields(st.Memory)...)
}

// warpFields are the summary lines and JSON fields of the warps' traffic:
// sectors per request and the share of the moved bytes used for global
// memory, passes per request and bank conflicts for shared memory, the
// worst site of each kind of access, and the whole of sim.Memory, sites
// included, under "memory".
func warpFields(m sim.Memory) []field {
	fs := []field{{Key: "memory", Value: m}}
	for _, k := range []sim.AccessKind{sim.GlobalLoad, sim.GlobalStore, sim.SharedLoad, sim.SharedStore} {
		r := m.Kind(k)
		if r.Requests == 0 {
			continue
		}
		key := strings.ReplaceAll(k.String(), " ", "_")
		label := strings.ToUpper(k.String()[:1]) + k.String()[1:] + " requests"
		if k.Shared() {
			fs = append(fs, field{Key: key + "_bank_conflicts", Label: label, Value: r.Conflicts,
				Text: fmt.Sprintf("%d warp requests, %.2f passes per request (1 is conflict-free): %d bank conflicts", r.Requests, r.ReplayFactor(), r.Conflicts)})
		} else {
			fs = append(fs, field{Key: key + "_sectors_per_request", Label: label, Value: r.SectorsPerRequest(),
				Text: fmt.Sprintf("%d warp requests, %.2f sectors of 32 B per request (ideal %d), %.1f %% of the moved bytes used",
					r.Requests, r.SectorsPerRequest(), sim.WarpSize*sim.ElemBytes/sim.SectorBytes, 100*r.Efficiency())})
		}
		if w, ok := m.Worst(k); ok {
			what := fmt.Sprintf("%.2f sectors per request", w.SectorsPerRequest())
			if k.Shared() {
				what = fmt.Sprintf("%.2f passes per request, up to %d-way", w.ReplayFactor(), w.MaxWays)
			}
			fs = append(fs, field{Key: key + "_worst_site", Label: "  worst site", Value: w.Place(),
				Text: fmt.Sprintf("%s (%s of %s): %s", w.Place(), k, w.Array, what)})
		}
	}
	if g := m.Global(); g.Requests > 0 {
		fs = append(fs, field{Key: "global_efficiency", Label: "Global bytes used", Value: g.Efficiency(),
			Text: fmt.Sprintf("%.1f %% of the %d B the warps moved in sectors (%d B asked for)", 100*g.Efficiency(), g.MovedBytes(), g.UsefulBytes)})
	}
	return fs
}

// plural writes n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Package sediment is the case study of the lab: the two-sediment basin
// model of Su et al., "Performance of Sediment Transport Simulations on
// NVIDIA's Kepler Architecture", ICCS 2013 (Procedia Computer Science 18,
// 1275–1281), with its fully explicit finite-difference scheme and a
// parallel float64 reference on the CPU.
//
// # The model
//
// The basin height h(x, y, t) and the sand fraction s(x, y, t) of a top
// transport layer of thickness A obey (paper eqs. 1 and 2)
//
//	∂h/∂t         = ∇·(α s ∇h)/Cs + ∇·(β (1−s) ∇h)/Cm
//	A ∂s/∂t + s ∂h/∂t = ∇·(α s ∇h)/Cs
//
// with diffusivities α(x, y), β(x, y) > 0 of sand and mud and compaction
// ratios Cs, Cm > 0. The flux of both sediments is prescribed on the whole
// boundary.
//
// # Storage
//
// An Nx×Ny mesh carries one layer of ghost points, so every field is a
// lab.Grid2 of (Ny+2)×(Nx+2) points, row-major with x fastest: the point
// (i, j) lives at j*(Nx+2) + i, the interior is 1 ≤ i ≤ Nx, 1 ≤ j ≤ Ny,
// exactly as in the paper's appendix (gid = gid_x + gid_y*(Nx+2)).
//
// # The scheme
//
// h advances by eq. 3 of the paper, forward Euler with arithmetic means of
// αs and β(1−s) on the faces. Write K for the face coefficient and F for the
// face flux into a point:
//
//	K(i+½, j) = (α_i s_i + α_{i+1} s_{i+1})/(2Cs) + (β_i(1−s_i) + β_{i+1}(1−s_{i+1}))/(2Cm)
//	F_east    = K(i+½, j)·(h_{i+1,j} − h_{i,j})/Δx²       (and likewise west, north, south)
//	h'        = h + Δt·(F_east + F_west + F_north + F_south)
//
// s advances by eq. 4 in its upwind, flux form. The sediment crossing a face
// carries the composition of the point it comes from: the sand share of a
// point's diffusivity, σ = (αs/Cs)/(αs/Cs + β(1−s)/Cm), and the mud share
// μ = (β(1−s)/Cm)/(αs/Cs + β(1−s)/Cm). With in_sand, in_mud the sediment
// entering over faces with F > 0 (weighted by the neighbour's σ and μ) and
// out the sediment leaving over faces with F < 0,
//
//	N  = A·s + Δt·(in_sand − σ·out)        (sand in the layer after the step)
//	M  = A·(1−s) + Δt·(in_mud − μ·out)     (mud in the layer after the step)
//	s' = N/(N + M)
//
// N + M = A + (h' − h), so this is eq. 4, A(s'−s)/Δt + s'(h'−h)/Δt = sand
// flux divergence, with the sand flux upwinded. Why not eq. 4 as printed:
//
//   - Its y-direction conditions are misprinted: both read
//     "h_{i,j+1} > h_{i,j+1}", which is never true. By the x-direction
//     pattern the backward difference α_{i,j}s_{i,j} − α_{i,j−1}s_{i,j−1} is
//     taken if h_{i,j−1} > h_{i,j+1} (the flow comes from the south) and the
//     forward difference α_{i,j+1}s_{i,j+1} − α_{i,j}s_{i,j} otherwise.
//     StepPrinted implements the printed scheme with this correction.
//   - Its right-hand side, one-sided difference of αs times central
//     difference of h, discretises ∇(αs)·∇h/Cs only: the αs∇²h part of
//     ∇·(αs∇h) is missing. In a pure-sand region (s = 1) that erodes it
//     pushes s above 1, by about the eroded depth over A. The flux form
//     keeps 0 ≤ s ≤ 1 exactly (see Limits).
//   - The sand flux is evaluated with the same h as the total flux of
//     eq. 3 (time level ℓ, where the paper uses h^{ℓ+1}), so that the sand
//     and mud moved always add up to the sediment moved. Both kernels then
//     read the same four arrays α, β, s^ℓ, h^ℓ and write one: the same
//     traffic as the paper's kernels.
//
// # Boundary
//
// The boundary of the basin is the line halfway between the last interior
// point and the ghost point. For each boundary face an Inflow gives the
// sediment rate Q entering the basin (volume per unit boundary length per
// unit time; negative leaves) and its sand share. Ghost α and β copy their
// interior neighbour, the ghost s is set so that the ghost's sand share σ is
// the inflow's, and before every step the ghost h is set to
// h_ghost = h_edge + Q·Δ/K (K the coefficient of the boundary face, Δ the
// spacing across it), so that K·(h_ghost − h_edge)/Δ² = Q/Δ: the prescribed
// flux. With Q = 0 the ghost copies its neighbour and no sediment crosses
// the boundary: Σh over the interior is conserved.
//
// # Stability
//
// Limits derives the largest stable Δt; Prepare refuses a larger one.
// For h, eq. 3 writes h' as h·(1 − Δt·ΣK/Δ²) + Δt·Σ K h_nb/Δ²: a convex
// combination of old values, hence no new extremum and no growing mode,
// when Δt·ΣK/Δ² ≤ 1. Each K is the mean of two point values of
// D = αs/Cs + β(1−s)/Cm, and since D is linear in s it lies between β/Cm
// and α/Cs for 0 ≤ s ≤ 1. With Dmax the largest of max(α/Cs, β/Cm) over
// the mesh, ΣK/Δ² ≤ 2·Dmax·(1/Δx² + 1/Δy²), so
//
//	Δt ≤ 1 / (2·Dmax·(1/Δx² + 1/Δy²))
//
// holds for the whole run as long as s stays in [0, 1]. For s, N ≥ 0 and
// M ≥ 0 (hence 0 ≤ s' ≤ 1) whenever a point does not send away more sand
// than its layer holds: Δt·σ·out ≤ A·s and Δt·μ·out ≤ A·(1−s). Since σ/s =
// (α/Cs)/D and μ/(1−s) = (β/Cm)/D, this is
//
//	Δt ≤ A / (out · max(α/Cs, β/Cm)/D)
//
// at every point that loses sediment: an upwind (Courant) limit whose
// velocity is the slope of h, not a diffusion limit. It depends on the
// current slopes, so Prepare checks it on the initial state and Step
// returns an error naming the point and the limit if a later state breaks
// it. Under the diffusion limit, out·Δt is at most the largest height
// difference to a lower neighbour, so a layer A thicker than
// max(α/Cs, β/Cm)/D times the steepest step of h between neighbours never
// binds.
package sediment

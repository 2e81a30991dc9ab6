// Package plot draws one TSPTW or TSPDL solution as an SVG picture, so a
// tour can be looked at rather than only read.
//
// The picture has a header and two panels. The header names the problem,
// the number of nodes, the cost in normalised and original units (× Scale)
// and the feasibility verdict, all taken from lazymask.Check. The map panel
// scatters the nodes (the depot as a square), draws the tour as a closed
// polyline with an arrowhead on every edge and, for up to MaxLabels nodes,
// each node's visit position; nodes that Check reports as violated are red.
// The schedule panel shows, per visit position, the time window [e, l] of
// the visited node as a bar and the arrival time as a dot with the wait up
// to e drawn in orange (TSPTW), or the draft limit of the visited port as a
// bar from 0 and the load after the visit as a dot (TSPDL); violations are
// red. Without a tour only the instance is drawn and the header says so.
//
//	f, _ := os.Create("tour.svg")
//	err := plot.TourSVG(f, inst, tour, "test.parquet row 3")
//	// or, atomically:
//	err = plot.WriteTourSVG("tour.svg", inst, tour, "test.parquet row 3")
package plot

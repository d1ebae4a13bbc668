//! Province shapes generated from province positions, for maps that carry no outlines.
//!
//! Each province is the part of the plane nearer its own position than any other (its Voronoi
//! cell), clipped to a land outline: the union of discs around the positions. Inside one cell the
//! own disc is the one that reaches furthest, so a cell clipped to the union is the cell clipped
//! to its own disc; both are convex, and so is the result, which a few half-plane clips compute
//! exactly (O(n²) for n provinces, about 2 000 clips for the printed board). Provinces that are
//! not neighbours by land are kept apart by water (a strait where a sea route joins them): the
//! bisector between them is moved back by half the water's width on each side, so a shared edge
//! always means a land border. Everything is plain `f32` arithmetic in a fixed order, so the
//! shapes are the same on every machine and every call.

/// A point of the map.
pub type Point = (f32, f32);

/// The sides of the polygon that stands for a disc.
const DISC_SIDES: usize = 32;

/// What the shapes are made from.
pub struct Sites<'a> {
    /// Province positions.
    pub points: &'a [Point],
    /// The land radius of each province: how far its land reaches into the sea.
    pub radii: &'a [f32],
    /// The width of the water between two provinces (0 for neighbours by land).
    pub gap: &'a dyn Fn(usize, usize) -> f32,
}

/// Keeps the part of `polygon` where `(p - origin) · normal <= offset`.
fn clip(polygon: &[Point], origin: Point, normal: Point, offset: f32) -> Vec<Point> {
    let side = |p: Point| (p.0 - origin.0) * normal.0 + (p.1 - origin.1) * normal.1 - offset;
    let mut out = Vec::with_capacity(polygon.len() + 1);
    for i in 0..polygon.len() {
        let a = polygon[i];
        let b = polygon[(i + 1) % polygon.len()];
        let (sa, sb) = (side(a), side(b));
        if sa <= 0.0 {
            out.push(a);
        }
        if (sa <= 0.0) != (sb <= 0.0) {
            let t = sa / (sa - sb);
            out.push((a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t));
        }
    }
    out
}

/// The shape of every province: a convex polygon around its position, counter-clockwise in
/// screen coordinates; empty when nothing of it is left (two provinces on one spot).
pub fn cells(sites: &Sites) -> Vec<Vec<Point>> {
    let points = sites.points;
    (0..points.len())
        .map(|i| {
            let (x, y) = points[i];
            let r = sites.radii[i];
            let mut cell: Vec<Point> = (0..DISC_SIDES)
                .map(|k| {
                    let a = std::f32::consts::TAU * k as f32 / DISC_SIDES as f32;
                    (x + r * a.cos(), y + r * a.sin())
                })
                .collect();
            for (j, &(ox, oy)) in points.iter().enumerate() {
                if j == i || cell.is_empty() {
                    continue;
                }
                let (dx, dy) = (ox - x, oy - y);
                let d = (dx * dx + dy * dy).sqrt();
                if d > r + sites.radii[j] {
                    continue;
                }
                if d == 0.0 {
                    // Two provinces on one spot: the later one gives way.
                    if j < i {
                        cell.clear();
                    }
                    continue;
                }
                let back = (sites.gap)(i.min(j), i.max(j)) / 2.0;
                let mid = ((x + ox) / 2.0, (y + oy) / 2.0);
                cell = clip(&cell, mid, (dx / d, dy / d), -back.min(d / 2.0 - 1.0));
            }
            cell
        })
        .collect()
}

/// Whether the segment `a`-`b` lies on the boundary between the positions `p` and `q` (on their
/// bisector, within `tolerance`).
pub fn on_bisector(a: Point, b: Point, p: Point, q: Point, tolerance: f32) -> bool {
    let dist = |u: Point, v: Point| ((u.0 - v.0).powi(2) + (u.1 - v.1).powi(2)).sqrt();
    (dist(a, p) - dist(a, q)).abs() < tolerance && (dist(b, p) - dist(b, q)).abs() < tolerance
}

/// The edges two cells share: for each pair of provinces whose shapes touch along a side, that
/// side.
pub fn shared_edges(points: &[Point], cells: &[Vec<Point>]) -> Vec<(usize, usize, Point, Point)> {
    let mut out = Vec::new();
    for (i, cell) in cells.iter().enumerate() {
        for k in 0..cell.len() {
            let (a, b) = (cell[k], cell[(k + 1) % cell.len()]);
            let length = ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
            if length < 0.5 {
                continue;
            }
            for j in i + 1..points.len() {
                if !cells[j].is_empty() && on_bisector(a, b, points[i], points[j], 0.05) {
                    out.push((i, j, a, b));
                }
            }
        }
    }
    out
}

/// The land radius of each province: far enough to meet its land neighbours without gaps (three
/// quarters of the way to the furthest, which covers the corners where three provinces meet) and
/// at least `base`, at most `max`, so a coastal province reaches a little into the sea.
pub fn land_radii(points: &[Point], neighbours: &[Vec<usize>], base: f32, max: f32) -> Vec<f32> {
    (0..points.len())
        .map(|i| {
            let furthest = neighbours[i]
                .iter()
                .map(|&j| {
                    let (dx, dy) = (points[j].0 - points[i].0, points[j].1 - points[i].1);
                    (dx * dx + dy * dy).sqrt()
                })
                .fold(0.0f32, f32::max);
            (furthest * 0.75).clamp(base, max)
        })
        .collect()
}

/// The area of a polygon (positive for either winding).
pub fn area(polygon: &[Point]) -> f32 {
    let mut twice = 0.0;
    for i in 0..polygon.len() {
        let (a, b) = (polygon[i], polygon[(i + 1) % polygon.len()]);
        twice += a.0 * b.1 - b.0 * a.1;
    }
    (twice / 2.0).abs()
}

/// Whether `p` lies inside `polygon`, convex or not (even-odd rule).
pub fn within(polygon: &[Point], p: Point) -> bool {
    let mut inside = false;
    for i in 0..polygon.len() {
        let (a, b) = (polygon[i], polygon[(i + 1) % polygon.len()]);
        if (a.1 > p.1) != (b.1 > p.1) && p.0 < a.0 + (p.1 - a.1) / (b.1 - a.1) * (b.0 - a.0) {
            inside = !inside;
        }
    }
    inside
}

/// Whether `p` lies inside the convex polygon.
pub fn contains(polygon: &[Point], p: Point) -> bool {
    if polygon.len() < 3 {
        return false;
    }
    let mut sign = 0.0f32;
    for i in 0..polygon.len() {
        let (a, b) = (polygon[i], polygon[(i + 1) % polygon.len()]);
        let cross = (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0);
        if cross.abs() < 1e-3 {
            continue;
        }
        if sign == 0.0 {
            sign = cross.signum();
        } else if cross.signum() != sign {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> Vec<Point> {
        let mut points = Vec::new();
        for row in 0..4 {
            for col in 0..5 {
                points.push((100.0 + col as f32 * 60.0, 100.0 + row as f32 * 60.0));
            }
        }
        points
    }

    #[test]
    fn within_follows_a_concave_outline() {
        // An L: its notch (top right) is outside, though inside the L's bounding box.
        let l = [
            (0.0, 0.0),
            (10.0, 0.0),
            (10.0, 4.0),
            (4.0, 4.0),
            (4.0, 10.0),
            (0.0, 10.0),
        ];
        assert!(within(&l, (2.0, 2.0)));
        assert!(within(&l, (8.0, 2.0)));
        assert!(within(&l, (2.0, 8.0)));
        assert!(!within(&l, (8.0, 8.0)));
        assert!(!within(&l, (-1.0, 2.0)));
        assert!(!within(&l, (12.0, 2.0)));
    }

    #[test]
    fn every_cell_holds_its_own_position_and_no_other() {
        let points = grid();
        let radii = vec![50.0; points.len()];
        let cells = cells(&Sites {
            points: &points,
            radii: &radii,
            gap: &|_, _| 0.0,
        });
        for (i, cell) in cells.iter().enumerate() {
            assert!(contains(cell, points[i]), "{i}");
            for (j, &p) in points.iter().enumerate() {
                if j != i {
                    assert!(!contains(cell, p), "cell {i} holds {j}");
                }
            }
        }
        // An inner cell of the grid is the 60 x 60 square around its position.
        assert!(
            (area(&cells[6]) - 3600.0).abs() < 1.0,
            "{}",
            area(&cells[6])
        );
        // A corner reaches 50 into the sea: a quarter disc plus the parts towards its neighbours.
        assert!(area(&cells[0]) > 3600.0);
    }

    #[test]
    fn neighbours_share_an_edge_and_a_strait_keeps_two_apart() {
        let points = vec![(0.0, 0.0), (60.0, 0.0), (120.0, 0.0)];
        let radii = vec![50.0; 3];
        let cells = cells(&Sites {
            points: &points,
            radii: &radii,
            gap: &|a, b| if (a, b) == (1, 2) { 12.0 } else { 0.0 },
        });
        let shared = shared_edges(&points, &cells);
        assert_eq!(shared.len(), 1, "{shared:?}");
        assert_eq!((shared[0].0, shared[0].1), (0, 1));
        let max_x_of_1 = cells[1].iter().map(|p| p.0).fold(f32::MIN, f32::max);
        let min_x_of_2 = cells[2].iter().map(|p| p.0).fold(f32::MAX, f32::min);
        assert!((min_x_of_2 - max_x_of_1 - 12.0).abs() < 0.01);
    }

    #[test]
    fn two_provinces_on_one_spot_leave_one_shape() {
        let points = vec![(0.0, 0.0), (0.0, 0.0)];
        let cells = cells(&Sites {
            points: &points,
            radii: &[30.0, 30.0],
            gap: &|_, _| 0.0,
        });
        assert!(!cells[0].is_empty());
        assert!(cells[1].is_empty());
    }

    #[test]
    fn land_radii_follow_the_furthest_neighbour_within_bounds() {
        let points = vec![(0.0, 0.0), (40.0, 0.0), (400.0, 0.0)];
        let neighbours = vec![vec![1], vec![0, 2], vec![1]];
        assert_eq!(
            land_radii(&points, &neighbours, 45.0, 90.0),
            vec![45.0, 90.0, 90.0]
        );
    }
}

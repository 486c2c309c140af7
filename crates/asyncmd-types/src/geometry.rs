//! Boxes, rectangles and viewports.

/// A 3D box with exclusive right, bottom and back (`D3D12_BOX`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Box3 {
    /// First x.
    pub left: u32,
    /// First y.
    pub top: u32,
    /// First z.
    pub front: u32,
    /// One past the last x.
    pub right: u32,
    /// One past the last y.
    pub bottom: u32,
    /// One past the last z.
    pub back: u32,
}

impl Box3 {
    /// A box from its six coordinates.
    pub const fn new(left: u32, top: u32, front: u32, right: u32, bottom: u32, back: u32) -> Self {
        Self { left, top, front, right, bottom, back }
    }

    /// The box `[0, width) × [0, height) × [0, depth)`.
    pub const fn sized(width: u32, height: u32, depth: u32) -> Self {
        Self::new(0, 0, 0, width, height, depth)
    }

    /// Width, height and depth; zero where a side is inverted.
    pub fn extent(&self) -> (u32, u32, u32) {
        (
            self.right.saturating_sub(self.left),
            self.bottom.saturating_sub(self.top),
            self.back.saturating_sub(self.front),
        )
    }

    /// Whether the box contains no texel.
    pub fn is_empty(&self) -> bool {
        self.right <= self.left || self.bottom <= self.top || self.back <= self.front
    }

    /// Whether the box lies within `[0, w) × [0, h) × [0, d)` and is not inverted.
    pub fn fits(&self, w: u32, h: u32, d: u32) -> bool {
        self.left <= self.right
            && self.top <= self.bottom
            && self.front <= self.back
            && self.right <= w
            && self.bottom <= h
            && self.back <= d
    }

    /// Whether two boxes share at least one texel.
    pub fn intersects(&self, other: &Box3) -> bool {
        self.left < other.right
            && other.left < self.right
            && self.top < other.bottom
            && other.top < self.bottom
            && self.front < other.back
            && other.front < self.back
    }
}

/// Boxes of a bound clear (`None`: the whole view) clipped to a `width × height` view of
/// `slices` slices, as (rectangle, first slice, slice count); boxes left empty are dropped.
pub fn clip_boxes(regions: Option<&[Box3]>, width: u32, height: u32, slices: u32) -> Vec<(Rect, u32, u32)> {
    let whole = [Box3::sized(width, height, slices)];
    // Views are at most 16384 texels wide; the clamp keeps a larger one from wrapping negative.
    let (width, height) = (width.min(i32::MAX as u32), height.min(i32::MAX as u32));
    regions
        .unwrap_or(&whole)
        .iter()
        .filter_map(|b| {
            let rect = Rect::new(
                b.left.min(width) as i32,
                b.top.min(height) as i32,
                b.right.min(width) as i32,
                b.bottom.min(height) as i32,
            );
            let back = b.back.min(slices);
            // `then`, not `then_some`: the count is only computed for a box that is not inverted.
            (!rect.is_empty() && back > b.front).then(|| (rect, b.front, back - b.front))
        })
        .collect()
}

/// A rectangle with exclusive right and bottom (`D3D12_RECT`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rect {
    /// First x.
    pub left: i32,
    /// First y.
    pub top: i32,
    /// One past the last x.
    pub right: i32,
    /// One past the last y.
    pub bottom: i32,
}

impl Rect {
    /// A rectangle from its four coordinates.
    pub const fn new(left: i32, top: i32, right: i32, bottom: i32) -> Self {
        Self { left, top, right, bottom }
    }

    /// The intersection of two rectangles (possibly empty).
    pub fn intersect(&self, other: &Rect) -> Rect {
        Rect::new(
            self.left.max(other.left),
            self.top.max(other.top),
            self.right.min(other.right),
            self.bottom.min(other.bottom),
        )
    }

    /// Whether the rectangle contains no pixel.
    pub fn is_empty(&self) -> bool {
        self.right <= self.left || self.bottom <= self.top
    }
}

/// A viewport (`D3D12_VIEWPORT`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Viewport {
    /// Left edge in pixels.
    pub top_left_x: f32,
    /// Top edge in pixels.
    pub top_left_y: f32,
    /// Width in pixels.
    pub width: f32,
    /// Height in pixels.
    pub height: f32,
    /// Depth mapped from NDC z = 0.
    pub min_depth: f32,
    /// Depth mapped from NDC z = 1.
    pub max_depth: f32,
}

impl Viewport {
    /// A viewport covering `[0, width) × [0, height)` with depth range [0, 1].
    pub fn sized(width: f32, height: f32) -> Self {
        Self { top_left_x: 0.0, top_left_y: 0.0, width, height, min_depth: 0.0, max_depth: 1.0 }
    }

    /// A viewport covering `rect` with depth range [0, 1].
    pub fn of_rect(rect: &Rect) -> Self {
        Self {
            top_left_x: rect.left as f32,
            top_left_y: rect.top as f32,
            width: rect.right.saturating_sub(rect.left) as f32,
            height: rect.bottom.saturating_sub(rect.top) as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverted_and_empty_boxes_are_dropped_by_the_clip() {
        let inverted_slices = Box3::new(0, 0, 5, 4, 4, 2);
        let inverted_rect = Box3::new(3, 0, 0, 1, 4, 1);
        let past_the_view = Box3::new(0, 0, 9, 4, 4, 12);
        let kept = Box3::new(1, 1, 0, 100, 3, 100);
        let clipped = clip_boxes(Some(&[inverted_slices, inverted_rect, past_the_view, kept]), 4, 4, 2);
        assert_eq!(clipped, vec![(Rect::new(1, 1, 4, 3), 0, 2)]);
    }

    #[test]
    fn no_regions_clip_to_the_whole_view() {
        assert_eq!(clip_boxes(None, 8, 2, 3), vec![(Rect::new(0, 0, 8, 2), 0, 3)]);
    }
}

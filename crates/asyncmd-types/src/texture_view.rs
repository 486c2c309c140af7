//! Shader resource and unordered access views of textures (`D3D12_TEX2D_SRV`,
//! `D3D12_TEX2D_ARRAY_UAV` and their kin), and the subresources each selects.

use crate::{BufferViewDesc, Format, Layout, ResourceDesc, ResourceDimension};

/// The shape a texture view gives the shader (`D3D12_SRV_DIMENSION`, `D3D12_UAV_DIMENSION`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureViewDimension {
    /// One 1D texture (`texture_1d`, `Texture1D`).
    Texture1D,
    /// Slices of a 1D texture array (`texture_1d_array` is not WGSL; `Texture1DArray`).
    Texture1DArray,
    /// One 2D texture (`texture_2d`, `Texture2D`).
    Texture2D,
    /// Slices of a 2D texture array (`texture_2d_array`, `Texture2DArray`).
    Texture2DArray,
    /// A 3D texture (`texture_3d`, `Texture3D`).
    Texture3D,
    /// Six slices of a square 2D texture array as the faces of a cube, +X, −X, +Y, −Y, +Z, −Z
    /// (`texture_cube`, `TextureCube`); shader resource views only.
    TextureCube,
    /// Cubes of six slices each (`texture_cube_array`, `TextureCubeArray`).
    TextureCubeArray,
}

impl TextureViewDimension {
    /// The shader's dimensions (1, 2 or 3; 4 for a cube) and whether it indexes slices (cubes).
    pub fn shape(self) -> (u8, bool) {
        match self {
            Self::Texture1D => (1, false),
            Self::Texture1DArray => (1, true),
            Self::Texture2D => (2, false),
            Self::Texture2DArray => (2, true),
            Self::Texture3D => (3, false),
            Self::TextureCube => (4, false),
            Self::TextureCubeArray => (4, true),
        }
    }

    /// Whether it views cubes.
    pub fn is_cube(self) -> bool {
        matches!(self, Self::TextureCube | Self::TextureCubeArray)
    }
}

/// A view of a texture's mips and slices, as the app describes it.
///
/// A shader resource view spans `mip_count` mips from `first_mip` (`u32::MAX`: to the last); an
/// unordered access view spans exactly one mip (`MipSlice`). Slices are array slices, or for an
/// unordered access view of a 3D texture its depth slices (`FirstWSlice`, `WSize`); a shader
/// resource view of a 3D texture always spans every depth slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextureViewDesc {
    /// The texels' format: `Unknown` takes the texture's own, another must be of its family
    /// (the same typeless group).
    pub format: Format,
    /// The shape.
    pub dimension: TextureViewDimension,
    /// The first mip (`MostDetailedMip`, or a UAV's `MipSlice`).
    pub first_mip: u32,
    /// Mips from `first_mip`; `u32::MAX` for all that remain.
    pub mip_count: u32,
    /// The first array (or depth) slice.
    pub first_slice: u32,
    /// Slices from `first_slice`; `u32::MAX` for all that remain.
    pub slice_count: u32,
}

impl TextureViewDesc {
    /// A view of every mip and slice in the texture's format, of `dimension`.
    pub fn new(dimension: TextureViewDimension) -> Self {
        Self {
            format: Format::Unknown,
            dimension,
            first_mip: 0,
            mip_count: u32::MAX,
            first_slice: 0,
            slice_count: u32::MAX,
        }
    }

    /// A whole 2D texture (every mip of an SRV; mip 0 of a UAV).
    pub fn texture_2d() -> Self {
        Self::new(TextureViewDimension::Texture2D)
    }

    /// The view in `format` instead of the texture's own.
    pub fn format(self, format: Format) -> Self {
        Self { format, ..self }
    }

    /// Mips `first..first + count` (a UAV takes `first` alone).
    pub fn mips(self, first: u32, count: u32) -> Self {
        Self { first_mip: first, mip_count: count, ..self }
    }

    /// Slices `first..first + count`.
    pub fn slices(self, first: u32, count: u32) -> Self {
        Self { first_slice: first, slice_count: count, ..self }
    }

    /// The subresources the view selects of a texture of `res`, as an unordered access view
    /// when `uav`; or why D3D12 refuses it.
    pub fn resolve(&self, res: &ResourceDesc, uav: bool) -> Result<TextureView, String> {
        use TextureViewDimension as D;
        let fits = match self.dimension {
            D::Texture1D | D::Texture1DArray => res.dimension == ResourceDimension::Texture1D,
            D::Texture2D | D::Texture2DArray | D::TextureCube | D::TextureCubeArray => {
                res.dimension == ResourceDimension::Texture2D
            }
            D::Texture3D => res.dimension == ResourceDimension::Texture3D,
        };
        if !fits {
            return Err(format!("a {:?} view of a {:?} resource", self.dimension, res.dimension));
        }
        if res.is_msaa() {
            return Err("a multisampled texture needs a Texture2DMS view".into());
        }
        let format = if self.format == Format::Unknown { res.format } else { self.format };
        if format.is_typeless() || format == Format::Unknown {
            return Err(format!("the view's format {format} is typeless: a view needs a typed format"));
        }
        if format.info().typeless != res.format.info().typeless {
            return Err(format!("the view's format {format} is not of the texture's family ({})", res.format));
        }
        if format.is_depth_stencil() {
            return Err(format!(
                "{format} is a depth-stencil format: view the texture as its R32 or R16 family member"
            ));
        }
        let mips = res.mip_count();
        if self.first_mip >= mips {
            return Err(format!("mip {} is past the texture's {mips} mips", self.first_mip));
        }
        let mip_count = match (uav, self.mip_count) {
            (true, _) => 1,
            (false, u32::MAX) => mips - self.first_mip,
            (false, n) if n == 0 || n > mips - self.first_mip => {
                return Err(format!("{n} mips from {} are not within the texture's {mips}", self.first_mip))
            }
            (false, n) => n,
        };
        // A 3D texture's depth slices (of the first mip) stand for its array slices; an SRV
        // spans them all.
        let slices = match self.dimension {
            D::Texture3D if !uav => {
                return Ok(self.resolved(format, mip_count, 0, (res.depth() >> self.first_mip).max(1)))
            }
            D::Texture3D => (res.depth() >> self.first_mip).max(1),
            _ => res.array_size(),
        };
        if self.first_slice >= slices {
            return Err(format!("slice {} is past the {slices} slices", self.first_slice));
        }
        let slice_count = match self.slice_count {
            u32::MAX => slices - self.first_slice,
            n if n == 0 || n > slices - self.first_slice => {
                return Err(format!("{n} slices from {} are not within the {slices}", self.first_slice))
            }
            n => n,
        };
        if self.dimension.is_cube() {
            // D3D12: a cube's faces are six slices of a square texture, read by shaders only.
            if uav {
                return Err("a cube view is a shader resource view: view the faces as a 2D array".into());
            }
            if res.width != u64::from(res.height) {
                return Err(format!("a cube's faces are square; the texture is {}×{}", res.width, res.height));
            }
            let cubes = match (self.dimension, self.slice_count) {
                (D::TextureCube, u32::MAX) => 1,
                (D::TextureCubeArray, u32::MAX) => (slices - self.first_slice) / 6,
                (_, n) if n % 6 == 0 => n / 6,
                (_, n) => return Err(format!("{n} slices are not whole cubes of six faces")),
            };
            if cubes == 0 || (self.dimension == D::TextureCube && cubes != 1) {
                return Err(format!("a {:?} view spans {} cubes", self.dimension, cubes));
            }
            if u64::from(self.first_slice) + 6 * u64::from(cubes) > u64::from(slices) {
                return Err(format!(
                    "{cubes} cubes from slice {} are not within the {slices} slices",
                    self.first_slice
                ));
            }
            return Ok(self.resolved(format, mip_count, self.first_slice, 6 * cubes));
        }
        if matches!(self.dimension, D::Texture1D | D::Texture2D) && slice_count != 1 {
            return Err(format!("a {:?} view spans one slice, not {slice_count}: use an array view", self.dimension));
        }
        Ok(self.resolved(format, mip_count, self.first_slice, slice_count))
    }

    fn resolved(&self, format: Format, mip_count: u32, first_slice: u32, slice_count: u32) -> TextureView {
        TextureView {
            format,
            dimension: self.dimension,
            first_mip: self.first_mip,
            mip_count,
            first_slice,
            slice_count,
        }
    }
}

/// A texture view resolved against its texture: every count is explicit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextureView {
    /// The texels' format.
    pub format: Format,
    /// The shape.
    pub dimension: TextureViewDimension,
    /// The first mip.
    pub first_mip: u32,
    /// Mips (1 for an unordered access view).
    pub mip_count: u32,
    /// The first array slice (of a 3D texture, the first depth slice of `first_mip`).
    pub first_slice: u32,
    /// Array slices (of a 3D texture, depth slices of `first_mip`: all of them for a shader
    /// resource view).
    pub slice_count: u32,
}

impl TextureView {
    /// The subresources of a texture of `res` the view spans (a 3D texture's depth slices are
    /// within its subresources).
    pub fn subresources(&self, res: &ResourceDesc) -> Vec<u32> {
        let slices = match self.dimension {
            TextureViewDimension::Texture3D => 0..1,
            _ => self.first_slice..self.first_slice.saturating_add(self.slice_count),
        };
        let mips = self.first_mip..self.first_mip.saturating_add(self.mip_count);
        slices.flat_map(|s| mips.clone().map(move |m| res.subresource_index(m, s, 0))).collect()
    }

    /// Whether shaders can read and write texels of the view's format one by one: formats of
    /// plain channels and the packed ones (not block-compressed, video or shared-exponent).
    pub fn has_texels(&self) -> bool {
        !matches!(
            self.format.info().layout,
            Layout::None | Layout::Block | Layout::Packed422 { .. } | Layout::Planar420 { .. }
        )
    }
}

/// What a shader resource or unordered access view describes: a buffer's elements or a
/// texture's subresources.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShaderViewDesc {
    /// A view of a buffer.
    Buffer(BufferViewDesc),
    /// A view of a texture.
    Texture(TextureViewDesc),
}

impl From<BufferViewDesc> for ShaderViewDesc {
    fn from(d: BufferViewDesc) -> Self {
        Self::Buffer(d)
    }
}

impl From<&BufferViewDesc> for ShaderViewDesc {
    fn from(d: &BufferViewDesc) -> Self {
        Self::Buffer(*d)
    }
}

impl From<TextureViewDesc> for ShaderViewDesc {
    fn from(d: TextureViewDesc) -> Self {
        Self::Texture(d)
    }
}

impl From<&TextureViewDesc> for ShaderViewDesc {
    fn from(d: &TextureViewDesc) -> Self {
        Self::Texture(*d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ResourceFlags;

    fn tex2d(w: u32, h: u32, slices: u16, mips: u16, format: Format) -> ResourceDesc {
        ResourceDesc::tex2d(format, w, h).with_array(slices).with_mips(mips)
    }

    #[test]
    fn a_view_selects_the_mips_and_slices_within_its_texture() {
        let res = tex2d(64, 64, 6, 4, Format::R8G8B8A8Typeless);
        let srv = TextureViewDesc::new(TextureViewDimension::Texture2DArray).format(Format::R8G8B8A8Unorm);
        let v = srv.mips(1, u32::MAX).slices(2, 3).resolve(&res, false).unwrap();
        assert_eq!((v.first_mip, v.mip_count, v.first_slice, v.slice_count), (1, 3, 2, 3));
        let uav = srv.mips(3, 0).resolve(&res, true).unwrap();
        assert_eq!((uav.first_mip, uav.mip_count, uav.slice_count), (3, 1, 6));
        assert!(srv.mips(4, 1).resolve(&res, false).unwrap_err().contains("past the texture's 4 mips"));
        assert!(srv.mips(1, 4).resolve(&res, false).unwrap_err().contains("not within"));
        assert!(srv.slices(5, 2).resolve(&res, false).unwrap_err().contains("not within"));
        assert!(TextureViewDesc::texture_2d().format(Format::R8G8B8A8Unorm).resolve(&res, false).is_err());
        assert!(srv.resolve(&res, false).is_ok());
    }

    #[test]
    fn a_view_takes_a_typed_format_of_the_textures_family() {
        let res = tex2d(8, 8, 1, 1, Format::R8G8B8A8Typeless);
        let view = TextureViewDesc::texture_2d();
        assert!(view.resolve(&res, false).unwrap_err().contains("typeless"));
        assert!(view.format(Format::R32Float).resolve(&res, false).unwrap_err().contains("family"));
        assert_eq!(view.format(Format::R8G8B8A8Uint).resolve(&res, true).unwrap().format, Format::R8G8B8A8Uint);
        let depth = tex2d(8, 8, 1, 1, Format::D32Float);
        assert!(view.resolve(&depth, false).unwrap_err().contains("depth-stencil"));
        assert!(view.resolve(&ResourceDesc::buffer(64), false).unwrap_err().contains("Buffer"));
    }

    #[test]
    fn a_3d_uav_selects_depth_slices_of_its_mip() {
        let res = ResourceDesc::tex3d(Format::R32Float, 16, 16, 8)
            .with_flags(ResourceFlags::ALLOW_UNORDERED_ACCESS)
            .with_mips(2);
        let view = TextureViewDesc::new(TextureViewDimension::Texture3D);
        let uav = view.mips(1, 1).slices(1, u32::MAX).resolve(&res, true).unwrap();
        assert_eq!((uav.first_slice, uav.slice_count), (1, 3));
        let srv = view.resolve(&res, false).unwrap();
        assert_eq!((srv.mip_count, srv.first_slice, srv.slice_count), (2, 0, 8));
    }
}

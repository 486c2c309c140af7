//! How the list's tracker sees the runtime's resources: by id, with a weak handle for the
//! submission's layout check (a list keeps nothing alive).

use crate::resource::{has_layouts, Resource, ResourceShared};
use crate::track::Texture;
use asyncmd_ddi::ResourceId;
use asyncmd_types::BarrierLayout;
use std::sync::{Arc, MutexGuard, Weak};

impl Texture for Resource {
    type Weak = Weak<ResourceShared>;

    fn id(&self) -> ResourceId {
        self.shared.id
    }

    fn tracked_subresources(&self) -> usize {
        // `Resource::create` gives a texture with layouts one per subresource.
        if has_layouts(self.desc()) {
            self.desc().subresource_count() as usize
        } else {
            0
        }
    }

    fn downgrade(&self) -> Self::Weak {
        Arc::downgrade(&self.shared)
    }

    fn upgrade(weak: &Self::Weak) -> Option<Self> {
        weak.upgrade().map(|shared| Resource { shared })
    }

    fn current_layouts(&self) -> MutexGuard<'_, Vec<BarrierLayout>> {
        self.layouts()
    }
}

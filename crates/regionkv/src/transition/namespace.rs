//! Namespace changes (HBase's `CreateNamespaceProcedure`, `ModifyNamespaceProcedure`,
//! `DeleteNamespaceProcedure`) as [`RegionTransition`]s: no region changes, but they
//! commit the catalog, and every catalog commit goes through the executor.

use super::{RegionTransition, Tx};
use crate::catalog::Catalog;
use crate::error::Result;
use std::collections::BTreeMap;

/// What happens to the namespace.
pub(crate) enum NamespaceChange {
    /// Create it, with these properties.
    Create(BTreeMap<String, String>),
    /// Replace its properties.
    Modify(BTreeMap<String, String>),
    /// Remove it (checked empty by the caller).
    Drop,
}

/// One namespace change, checked and ready to run.
pub(crate) struct ChangeNamespace {
    pub(crate) name: String,
    pub(crate) change: NamespaceChange,
}

impl RegionTransition for ChangeNamespace {
    type Output = ();

    fn name(&self) -> &'static str {
        match self.change {
            NamespaceChange::Create(_) => "create-namespace",
            NamespaceChange::Modify(_) => "modify-namespace",
            NamespaceChange::Drop => "drop-namespace",
        }
    }

    fn stage(&mut self, tx: &mut Tx<'_>) -> Result<()> {
        if let NamespaceChange::Create(_) = self.change {
            // The directory first, so a rebuilt catalog (`regionkv repair`) finds the
            // namespace even while it holds no table.
            tx.db
                .fs
                .create_dir_all(&crate::layout::namespace_dir(&tx.db.dir, &self.name))?;
        }
        Ok(())
    }

    fn unstage(&mut self, tx: &Tx<'_>) {
        if let NamespaceChange::Create(_) = self.change {
            remove_if_empty(tx, &self.name);
        }
    }

    fn next_catalog(&self, current: &Catalog) -> Catalog {
        let mut next = current.clone();
        match &self.change {
            NamespaceChange::Create(properties) | NamespaceChange::Modify(properties) => {
                next.namespaces.insert(self.name.clone());
                if properties.is_empty() {
                    next.namespace_properties.remove(&self.name);
                } else {
                    next.namespace_properties
                        .insert(self.name.clone(), properties.clone());
                }
            }
            NamespaceChange::Drop => {
                next.namespaces.remove(&self.name);
                next.namespace_properties.remove(&self.name);
            }
        }
        next
    }

    fn publish(&mut self, _tx: &mut Tx<'_>) -> Result<()> {
        Ok(())
    }

    fn cleanup(&mut self, tx: &Tx<'_>) {
        if let NamespaceChange::Drop = self.change {
            remove_if_empty(tx, &self.name);
        }
    }
}

/// Removes namespace `name`'s directory if it holds nothing (a failure is logged: the
/// next open removes an empty directory of a namespace the catalog does not name).
fn remove_if_empty(tx: &Tx<'_>, name: &str) {
    let dir = crate::layout::namespace_dir(&tx.db.dir, name);
    let removed = tx.db.fs.exists(&dir).and_then(|there| {
        if there && tx.db.fs.list(&dir)?.is_empty() {
            tx.db.fs.remove_dir_all(&dir)
        } else {
            Ok(())
        }
    });
    if let Err(e) = removed {
        tracing::warn!(dir = %dir.display(), error = %e, "could not remove a namespace's directory; the next open will");
    }
}

// Folds a tall layered drawing into side-by-side columns, as text wraps into columns: a
// transformer's 270 ops in 12 repeated layers draw as one column 200 layers high otherwise. Cuts
// fall only between two layers that no longer edge jumps over, so every column is a run of
// whole layers; the few edges from the last layer of a column to the first of the next are
// routed through the gap between the columns.
#pragma once

#include "graph/layered_layout.h"

namespace opsched {

struct ColumnWrapOptions {
    // The viewport's width / height: the drawing gets the number of columns that lets it be shown
    // largest there (1.6: a typical panel).
    double aspect = 1.6;
    double columnGap = 96; // horizontal space between columns (the cross-column edges run there)
    int maxColumns = 12;
};

// The layout folded into columns when it is much taller than wide; unchanged otherwise. Node
// layers stay as they were; boxes move, and each visual row (y / (nodeHeight + layerGap)) holds
// nodes of one layer per column.
LayeredLayout wrapIntoColumns(LayeredLayout layout, const ColumnWrapOptions& options = {});

} // namespace opsched

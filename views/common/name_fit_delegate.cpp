#include "common/name_fit_delegate.h"

#include "common/name_fit.h"
#include "common/sortable_table_model.h"

#include <QApplication>
#include <QStyle>

namespace opsched {

void NameFitDelegate::initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    if (option->text.isEmpty() || option->rect.width() <= 0)
        return;
    // The text's room: the cell less the style's margins on both sides.
    const QStyle* style = option->widget ? option->widget->style() : QApplication::style();
    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, option->widget) + 1;
    const int room = option->rect.width() - 2 * margin;
    option->text
        = fitName(option->text, index.data(SortableTableModel::DistinctNameRole).toString(), option->fontMetrics, room);
    option->textElideMode = Qt::ElideNone;
}

} // namespace opsched

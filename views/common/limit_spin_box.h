// A spin box whose range and starting value are one of engine/limits.h's limits, so the window's
// inputs accept exactly what opsched-cli's options accept and start where they start.
#pragma once

#include "engine/limits.h"

#include <QSpinBox>
#include <QString>

#include <algorithm>
#include <climits>

namespace opsched {

template <typename T>
QSpinBox* limitSpinBox(const engine::Limit<T>& limit, const QString& objectName, const QString& toolTip)
{
    // QSpinBox holds an int: a wider limit is cut to int's range.
    auto toInt
        = [](T v) { return static_cast<int>(std::clamp<long long>(static_cast<long long>(v), INT_MIN, INT_MAX)); };
    auto* box = new QSpinBox;
    box->setObjectName(objectName);
    box->setRange(toInt(limit.min), toInt(limit.max));
    box->setValue(toInt(limit.def));
    box->setToolTip(toolTip);
    return box;
}

} // namespace opsched

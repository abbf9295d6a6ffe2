#pragma once

#include <exception>
#include <utility>

#include <QString>

/// What `body` threw ("" when nothing): an engine error fails the test, not the program.
template <class Body>
QString thrown(Body&& body)
{
    try {
        std::forward<Body>(body)();
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

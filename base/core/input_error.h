#pragma once

#include <stdexcept>
#include <string>

namespace lcs {

/// Bad input from outside the program: a file, a field in it, a flag's value. The
/// message names the file, field or value, so it can be shown to a user as it is.
/// Every reader throws this (or a subclass) and nothing else for bad content; the CLI
/// maps it to exit status 2 and the window to a message box.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The data a run's settings name could not be read (no such folder, missing or bad
/// files). An InputError (the CLI exits 2); the window tells it apart, so that it can
/// say which data to install instead of blaming a setting.
class DataError : public InputError {
public:
    using InputError::InputError;
};

/// An output that could not be written (disk full, no permission, a directory in the
/// way). The message names the path. The earlier file at that path is left as it was.
class OutputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A computed result that is not a finite number: a training loss that overflowed (a
/// learning rate too large for the data), a metric over NaN probabilities. Writing it
/// would pass the breakage on as a number, so the run stops with a message that names the
/// quantity and, where there is one, the setting to change. The CLI maps it to status 1.
class ResultError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace lcs

#pragma once

#include <QMainWindow>

namespace lcs::ui {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
};

} // namespace lcs::ui

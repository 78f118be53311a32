// The bits of COIN-OR CBC's C interface the MILP mappers share: a model to add columns and rows
// to, and stdout sent to stderr while CBC solves. Only included where OPSCHED_HAVE_CBC is set.
#pragma once

#include <Cbc_C_Interface.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

namespace opsched::map::cbc {

// CBC prints through its own handlers, partly on stdout, where `--json` output goes: send the
// process's stdout to stderr while it solves.
class StdoutToStderr {
public:
    StdoutToStderr()
    {
        std::fflush(stdout);
        saved_ = ::dup(STDOUT_FILENO);
        if (saved_ >= 0)
            ::dup2(STDERR_FILENO, STDOUT_FILENO);
    }
    ~StdoutToStderr()
    {
        std::fflush(stdout);
        if (saved_ >= 0) {
            ::dup2(saved_, STDOUT_FILENO);
            ::close(saved_);
        }
    }
    StdoutToStderr(const StdoutToStderr&) = delete;
    StdoutToStderr& operator=(const StdoutToStderr&) = delete;

private:
    int saved_ = -1;
};

struct Model {
    Cbc_Model* model = Cbc_newModel();
    ~Model() { Cbc_deleteModel(model); }
    Model() = default;
    Model(const Model&) = delete;
    Model& operator=(const Model&) = delete;

    int columns = 0;
    int addColumn(double lb, double ub, double objective, bool integer)
    {
        Cbc_addCol(model, "", lb, ub, objective, integer ? 1 : 0, 0, nullptr, nullptr);
        return columns++;
    }
    void addRow(const std::vector<int>& cols, const std::vector<double>& coefs, char sense, double rhs)
    {
        Cbc_addRow(model, "", static_cast<int>(cols.size()), cols.data(), coefs.data(), sense, rhs);
    }
};

} // namespace opsched::map::cbc

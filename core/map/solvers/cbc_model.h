// The bits of COIN-OR CBC's C interface the MILP mappers share: a model to add columns and rows
// to, and stdout sent to stderr while CBC solves. Only included where OPSCHED_HAVE_CBC is set.
#pragma once

#include <Cbc_C_Interface.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <string>
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

// One constraint being built: each column once, with its coefficient.
struct Row {
    std::vector<int> cols;
    std::vector<double> coefs;
    void clear()
    {
        cols.clear();
        coefs.clear();
    }
    void add(int col, double coef)
    {
        cols.push_back(col);
        coefs.push_back(coef);
    }
    bool empty() const { return cols.empty(); }
    std::size_t size() const { return cols.size(); }
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
        // CBC matches a MIP start's values to columns by name: with empty names they all collide
        // and the start is dropped ("mipstart values could not be used"), so every column gets one.
        const std::string name = "c" + std::to_string(columns);
        Cbc_addCol(model, name.c_str(), lb, ub, objective, integer ? 1 : 0, 0, nullptr, nullptr);
        return columns++;
    }
    void addRow(const Row& row, char sense, double rhs)
    {
        Cbc_addRow(model, "", static_cast<int>(row.cols.size()), row.cols.data(), row.coefs.data(), sense, rhs);
    }

    // Minimises, quietly on stdout, within `seconds` and, when not 0, `maxNodes` nodes.
    void solve(double seconds, int logLevel, std::uint64_t maxNodes = 0)
    {
        Cbc_setObjSense(model, 1);
        Cbc_setLogLevel(model, logLevel);
        // Wall-clock seconds: CBC counts CPU time by default, so on a loaded machine a 60 s limit
        // ran 390 s of a user's time.
        Cbc_setParameter(model, "timeMode", "elapsed");
        Cbc_setMaximumSeconds(model, std::max(0.01, seconds));
        if (maxNodes > 0)
            Cbc_setMaximumNodes(model, static_cast<int>(std::min<std::uint64_t>(maxNodes, INT_MAX)));
        StdoutToStderr quiet;
        Cbc_solve(model);
    }
};

} // namespace opsched::map::cbc

#include "map/solvers/exact_search_state.h"

#include "map/solvers/simplex_climb.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace opsched::map::exact_detail {

double Search::nodeBound() const
{
    // Unscheduled tasks start no earlier than the last start (schedules are built in start
    // order). On each device u a task starts no earlier than u frees, its release, its scheduled
    // inputs' arrival on u, and its unscheduled inputs' earliest completion on some device v plus
    // the transfer v -> u (none when v = u); after it ends on u its successors need their chain
    // (transfers included). The least over u of the two bounds the makespan.
    // A task whose start, cost and chain after on u reach the best makespan known cannot run on u
    // in any better schedule: u is left out of its inputs' arrivals, heads, tails and loads (deep
    // in the tree this keeps a slow device from absorbing a fraction of a task it has no time for).
    // The chains after are then recomputed over the devices left, and the pass repeated once.
    double bound = makespan_;
    allowedOn_.assign(n_ * k_, 1);
    bound = std::max(bound, forwardPass(tailOn_));
    if (bound >= best_ - kEps)
        return bound;
    if (!restricted_.empty()) {
        backwardPass();
        bound = std::max(bound, forwardPass(dynamicTail_));
        if (bound >= best_ - kEps)
            return bound;
    }
    const std::vector<double>& tails = restricted_.empty() ? tailOn_ : dynamicTail_;
    thread_local std::vector<std::vector<Forced>> forced; // per device, the tasks only it can run
    forced.resize(k_);
    for (auto& f : forced)
        f.clear();
    for (int b = 0; b < 2; ++b) {
        head_[b].assign(k_, kUnsupported);
        minTailOn_[b].assign(k_, kUnsupported);
    }
    for (std::uint32_t t : topo_) {
        if (done_ >> t & 1U)
            continue;
        std::uint32_t count = 0, only = 0;
        for (std::uint32_t u = 0; u < k_; ++u) {
            if (!allowedOn_[t * k_ + u])
                continue;
            ++count;
            only = u;
            const double s = startOn_[t * k_ + u];
            for (int b = 0; b < (p_.dag.successors[t].empty() ? 1 : 2); ++b) {
                head_[b][u] = std::min(head_[b][u], s);
                minTailOn_[b][u] = std::min(minTailOn_[b][u], tails[t * k_ + u]);
            }
        }
        if (count == 1)
            forced[only].push_back({ startOn_[t * k_ + only], cost(t, only), tails[t * k_ + only] });
    }
    // The tasks only u can run, one after another there: those that start at a or later end no
    // earlier than a plus their costs, and the chain after the last of them follows.
    for (auto& f : forced) {
        if (f.size() < 2)
            continue;
        std::sort(f.begin(), f.end(), [](const Forced& a, const Forced& b) { return a.head > b.head; });
        double sum = 0, tail = kUnsupported;
        for (const Forced& x : f) {
            sum += x.cost;
            tail = std::min(tail, x.tail);
            bound = std::max(bound, x.head + sum + tail);
        }
    }
    // Loads: the makespan is at least each device's next free moment plus what it still runs, so
    // at least any convex combination of those: sum_u lambda_u (max(free_u, last start) +
    // load_u) >= sum_u lambda_u max(free_u, last start) + sum_t min_u lambda_u c(t, u).
    for (std::size_t w = 0; w < lambda_.size(); ++w) {
        double sum = remainingWeighted_[w];
        for (std::uint32_t t : restricted_)
            sum += leastWeighted(lambda_[w], t) - weighted_[w][t];
        for (std::uint32_t u = 0; u < k_; ++u)
            sum += lambda_[w][u] * std::max(devFree_[u], lastStart_);
        bound = std::max(bound, sum);
    }
    bound = std::max(bound, windowBound());
    if (bound >= best_ - kEps)
        return bound;
    return std::max(bound, countBound());
}

double Search::countBound() const
{
    // Whole tasks: in a schedule better than the best known, device u runs its tasks inside
    // [head_u, best - least tail_u], so at most m_u of them (its cheapest ones fit). The window
    // bounds split tasks fractionally; with tasks of near-equal cost this counts them whole. The
    // others' slots are at most the sum of their m_u (a task may count for two: a relaxation),
    // and the tasks only they can run take slots first; device r then runs the rest, at least
    // its cheapest ones on r.
    thread_local std::vector<std::vector<double>> costs; // per device: of the tasks it may run, ascending
    thread_local std::vector<std::int64_t> fits; // per device: m_u
    costs.resize(k_);
    double bound = 0;
    for (int b = 0; b < 2; ++b) {
        fits.assign(k_, 0);
        std::int64_t tasks = 0;
        for (std::uint32_t t = 0; t < n_; ++t)
            tasks += !(done_ >> t & 1U) && (b == 0 || !p_.dag.successors[t].empty());
        for (std::uint32_t u = 0; u < k_; ++u) {
            costs[u].clear();
            for (std::uint32_t t = 0; t < n_; ++t)
                if (!(done_ >> t & 1U) && allowedOn_[t * k_ + u] && (b == 0 || !p_.dag.successors[t].empty()))
                    costs[u].push_back(cost(t, u));
            std::sort(costs[u].begin(), costs[u].end());
            const double room = best_ - head_[b][u] - minTailOn_[b][u];
            double used = 0;
            for (double c : costs[u]) {
                if (used + c >= room)
                    break;
                used += c;
                ++fits[u];
            }
        }
        for (std::uint32_t r = 0; r < k_; ++r) {
            if (costs[r].empty())
                continue;
            std::int64_t slots = 0;
            for (std::uint32_t u = 0; u < k_; ++u)
                if (u != r)
                    slots += fits[u];
            const std::int64_t elsewhere = tasks - static_cast<std::int64_t>(costs[r].size());
            if (slots < elsewhere)
                return best_; // the tasks r cannot run do not fit elsewhere
            const std::int64_t stay = static_cast<std::int64_t>(costs[r].size()) - (slots - elsewhere);
            double load = 0;
            for (std::int64_t i = 0; i < stay; ++i)
                load += costs[r][static_cast<std::size_t>(i)];
            if (stay > 0)
                bound = std::max(bound, head_[b][r] + load + minTailOn_[b][r]);
        }
    }
    return bound;
}

inline double Search::leastWeighted(const std::vector<double>& lambda, std::uint32_t t, std::uint32_t subset) const
{
    double m = kUnsupported;
    for (std::uint32_t u = 0; u < k_; ++u)
        if (allowedOn_[t * k_ + u] && (u >= 32 || (subset >> u & 1U)))
            m = std::min(m, lambda[u] * cost(t, u));
    return m;
}

double Search::forwardPass(const std::vector<double>& tails) const
{
    // Earliest starts and completions over the devices still allowed (allowedOn_), from the
    // partial schedule; narrows allowedOn_ to the devices where the task's start, cost and tail
    // stay below the best makespan known. Returns the path bound; fills restricted_.
    double bound = 0;
    thread_local std::vector<double> ect;
    ect.assign(n_ * k_, kUnsupported);
    startOn_.assign(n_ * k_, kUnsupported);
    restricted_.clear();
    for (std::uint32_t t : topo_) {
        if (done_ >> t & 1U)
            continue;
        double best = kUnsupported;
        bool any = false, narrowed = false;
        for (std::uint32_t u = 0; u < k_; ++u) {
            const double c = cost(t, u);
            if (!allowedOn_[t * k_ + u]) {
                narrowed = narrowed || std::isfinite(c);
                continue;
            }
            if (!std::isfinite(c)) {
                allowedOn_[t * k_ + u] = 0;
                continue;
            }
            double s = std::max({ lastStart_, devFree_[u], p_.releaseOf(t, u) });
            for (std::uint32_t q : p_.dag.predecessors[t]) {
                if (done_ >> q & 1U) {
                    s = std::max(s, finish_[q] + comm(q, device_[q], u));
                    continue;
                }
                double arrive = kUnsupported;
                for (std::uint32_t v = 0; v < k_; ++v)
                    arrive = std::min(arrive, ect[q * k_ + v] + comm(q, v, u));
                s = std::max(s, arrive);
            }
            const double through = s + c + tails[t * k_ + u];
            best = std::min(best, through);
            if (through >= best_ - kEps) {
                allowedOn_[t * k_ + u] = 0; // not on u in a better schedule
                narrowed = true;
                continue;
            }
            any = true;
            startOn_[t * k_ + u] = s;
            ect[t * k_ + u] = s + c;
        }
        bound = std::max(bound, best);
        if (!any)
            return bound; // no device left for t: nothing better below
        if (narrowed)
            restricted_.push_back(t);
    }
    return bound;
}

void Search::backwardPass() const
{
    // The chain after each unscheduled task on each device, its successors on their allowed
    // devices only (tailOn_ over all of them).
    dynamicTail_.assign(n_ * k_, 0.0);
    for (auto it = topo_.rbegin(); it != topo_.rend(); ++it) {
        const std::uint32_t t = *it;
        if (done_ >> t & 1U)
            continue;
        for (std::uint32_t u = 0; u < k_; ++u) {
            if (!allowedOn_[t * k_ + u])
                continue;
            double tail = 0;
            for (std::uint32_t s : p_.dag.successors[t]) {
                double next = kUnsupported;
                for (std::uint32_t v = 0; v < k_; ++v)
                    if (allowedOn_[s * k_ + v])
                        next = std::min(next, comm(t, u, v) + cost(s, v) + dynamicTail_[s * k_ + v]);
                tail = std::max(tail, next);
            }
            dynamicTail_[t * k_ + u] = std::max(tail, tailOn_[t * k_ + u]);
        }
    }
}

double Search::windowBound() const
{
    // Whichever devices S run the unscheduled tasks, each u of S is busy from its head to the
    // makespan less its tail with at least its share of them: makespan >= head_u + load_u +
    // tail_u for u in S, so >= any convex combination over S. The least over S bounds it. The
    // body windows do the same without the sinks (whose tail is zero) in loads, heads and tails.
    double bound = 0;
    if (windows_.empty())
        return bound;
    for (int body = 0; body < 2; ++body) {
        const auto& head = head_[body];
        const auto& tail = minTailOn_[body];
        if (std::none_of(head.begin(), head.end(), [](double h) { return std::isfinite(h); }))
            continue; // none of them left
        double least = kUnsupported;
        for (std::size_t w = 0; w < windows_.size();) {
            const std::uint32_t subset = windows_[w].subset;
            double best = 0;
            bool valid = true;
            for (std::uint32_t u = 0; u < k_; ++u)
                valid = valid && (!(subset >> u & 1U) || std::isfinite(head[u])); // else S runs none of them
            for (; w < windows_.size() && windows_[w].subset == subset; ++w) {
                const Window& win = windows_[w];
                if (!valid || win.body != (body == 1))
                    continue;
                if (win.impossible > 0) {
                    best = kUnsupported;
                    continue;
                }
                double value = win.remaining;
                for (std::uint32_t t : restricted_) {
                    if (!std::isfinite(win.perTask[t]) || (win.body && p_.dag.successors[t].empty()))
                        continue; // counted as impossible already, or a sink left out
                    value += leastWeighted(win.lambda, t, subset) - win.perTask[t];
                }
                for (std::uint32_t u = 0; u < k_; ++u)
                    if (subset >> u & 1U)
                        value += win.lambda[u] * (head[u] + tail[u]);
                best = std::max(best, value);
            }
            if (valid)
                least = std::min(least, best);
        }
        bound = std::max(bound, least);
    }
    return bound;
}

void Search::prepareBounds()
{
    tailOn_.assign(n_ * k_, 0.0);
    for (auto it = topo_.rbegin(); it != topo_.rend(); ++it)
        for (std::uint32_t u = 0; u < k_; ++u)
            for (std::uint32_t s : p_.dag.successors[*it]) {
                double next = kUnsupported;
                for (std::uint32_t v = 0; v < k_; ++v)
                    if (std::isfinite(cost(s, v)))
                        next = std::min(next, comm(*it, u, v) + cost(s, v) + tailOn_[s * k_ + v]);
                tailOn_[*it * k_ + u] = std::max(tailOn_[*it * k_ + u], next);
            }
    // Weightings for the load bound: equal, each device's speed (the fastest costs over its own,
    // over the tasks it can run), and for up to four devices the one that makes the bound largest
    // at the start (a grid over the simplex: the fractional work bound of unrelated devices).
    lambda_.assign(1, std::vector<double>(k_, 1.0 / static_cast<double>(k_)));
    std::vector<double> speed(k_, 0.0);
    double total = 0;
    for (std::uint32_t u = 0; u < k_; ++u) {
        double mine = 0, fast = 0;
        for (std::uint32_t t = 0; t < n_; ++t)
            if (std::isfinite(cost(t, u))) {
                mine += cost(t, u);
                fast += fastest_[t];
            }
        speed[u] = mine > 0 ? fast / mine : 0.0;
        total += speed[u];
    }
    if (total > 0) {
        for (double& v : speed)
            v /= total;
        lambda_.push_back(speed);
    }
    auto weigh = [&](const std::vector<double>& lambda, std::vector<double>* perTask) {
        double sum = 0;
        for (std::uint32_t t = 0; t < n_; ++t) {
            double m = kUnsupported;
            for (std::uint32_t u = 0; u < k_; ++u)
                if (std::isfinite(cost(t, u)))
                    m = std::min(m, lambda[u] * cost(t, u));
            sum += m;
            if (perTask)
                perTask->push_back(m);
        }
        return sum;
    };
    if (k_ >= 2 && k_ <= 4) {
        const int steps = k_ == 2 ? 400 : k_ == 3 ? 80 : 24;
        std::vector<double> lambda(k_), best;
        double bestValue = -1;
        std::vector<int> c(k_, 0);
        std::function<void(std::size_t, int)> grid = [&](std::size_t u, int left) {
            if (u + 1 == k_) {
                c[u] = left;
                for (std::size_t v = 0; v < k_; ++v)
                    lambda[v] = c[v] / static_cast<double>(steps);
                if (const double value = weigh(lambda, nullptr); value > bestValue) {
                    bestValue = value;
                    best = lambda;
                }
                return;
            }
            for (int i = 0; i <= left; ++i) {
                c[u] = i;
                grid(u + 1, left - i);
            }
        };
        grid(0, steps);
        lambda_.push_back(best);
    }
    weighted_.clear();
    remainingWeighted_.clear();
    for (const auto& lambda : lambda_) {
        weighted_.emplace_back();
        remainingWeighted_.push_back(weigh(lambda, &weighted_.back()));
    }
}

void Search::prepareWindows()
{
    windows_.clear();
    if (k_ > kWindowDevices)
        return;
    nodeBound(); // the heads and tails at the root
    // A root the first passes already prove (a device pair without a link can make the chains
    // infinite) stops before the heads are computed: no windows are needed then.
    if (head_[0].size() != k_ || head_[1].size() != k_)
        return;
    for (std::uint32_t subset = 1; subset < (1U << k_); ++subset) {
        std::vector<std::uint32_t> members;
        for (std::uint32_t u = 0; u < k_; ++u)
            if (subset >> u & 1U)
                members.push_back(u);
        for (int body = 0; body < 2; ++body) {
            auto window = [&](const std::vector<double>& lambda) {
                Window win;
                win.subset = subset;
                win.body = body == 1;
                win.lambda = lambda;
                win.perTask.assign(n_, kUnsupported);
                for (std::uint32_t t = 0; t < n_; ++t) {
                    if (win.body && p_.dag.successors[t].empty())
                        win.perTask[t] = 0;
                    for (std::uint32_t u : members)
                        if (std::isfinite(cost(t, u)))
                            win.perTask[t] = std::min(win.perTask[t], lambda[u] * cost(t, u));
                    if (std::isfinite(win.perTask[t]))
                        win.remaining += win.perTask[t];
                    else
                        ++win.impossible;
                }
                return win;
            };
            auto rootValue = [&](const std::vector<double>& share) {
                std::vector<double> lambda(k_, 0.0);
                for (std::size_t i = 0; i < members.size(); ++i)
                    lambda[members[i]] = share[i];
                const Window win = window(lambda);
                double value = win.impossible > 0 ? kUnsupported : win.remaining;
                for (std::uint32_t u : members)
                    value += lambda[u] * (head_[body][u] + minTailOn_[body][u]);
                return value;
            };
            // Equal weights over S, and for two or more devices the best at the root.
            std::vector<double> share(members.size(), 1.0 / static_cast<double>(members.size()));
            std::vector<std::vector<double>> shares { share };
            if (members.size() >= 2 && std::isfinite(rootValue(share))) {
                climbSimplex(share, rootValue, rootValue(share), { 0.1, 0.02, 0.005, 0.001 });
                shares.push_back(share);
            }
            for (const auto& w : shares) {
                std::vector<double> lambda(k_, 0.0);
                for (std::size_t i = 0; i < members.size(); ++i)
                    lambda[members[i]] = w[i];
                windows_.push_back(window(lambda));
            }
        }
    }
}

} // namespace opsched::map::exact_detail

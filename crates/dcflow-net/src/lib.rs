//! Topologies, routing (shortest path, ECMP, BCube), links and queues.

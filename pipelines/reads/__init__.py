"""Read models over the store shared by ``gdan`` and the dashboards: an event's stages, rounds,
pairings, printout documents and coaches' notes."""

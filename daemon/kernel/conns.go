package kernel

// DefaultMaxConnsPerIP caps the connections one client address may hold open.
const DefaultMaxConnsPerIP = 256

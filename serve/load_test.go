package serve

const childEnv = "INFLIGHT_SERVE_CHILD"

func runChildServer() int { return 0 }

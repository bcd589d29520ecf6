// PID speed control of a DC motor with a filtered derivative term; cost = integrated squared error + control effort.

export interface PidGains {
  kp: number;
  ki: number;
  kd: number;
}

interface PidState {
  integral: number;
  prevMeasurement: number;
  filteredDerivative: number;
}

interface MotorState {
  omega: number; // shaft speed, rad/s
  current: number; // armature current, A
}

export interface MotorParams {
  resistance: number;
  inductance: number;
  torqueConstant: number;
  inertia: number;
  friction: number;
}

export const defaultMotor: MotorParams = { resistance: 1.2, inductance: 0.05, torqueConstant: 0.08, inertia: 0.004, friction: 0.0015 };

function makeController({ kp, ki, kd }: PidGains, tau = 0.02, voltageLimit = 48) {
  const state: PidState = { integral: 0, prevMeasurement: 0, filteredDerivative: 0 };
  return (setpoint: number, measurement: number, dt: number) => {
    const error = setpoint - measurement;
    state.integral += error * dt;
    // derivative on measurement avoids setpoint kick; first-order low-pass filter
    const rawDerivative = -(measurement - state.prevMeasurement) / dt;
    state.filteredDerivative += (dt / (tau + dt)) * (rawDerivative - state.filteredDerivative);
    state.prevMeasurement = measurement;
    const u = kp * error + ki * state.integral + kd * state.filteredDerivative;
    // soft saturation keeps the command differentiable
    return voltageLimit * Math.tanh(u / voltageLimit);
  };
}

function motorStep(s: MotorState, voltage: number, load: number, dt: number, p: MotorParams): MotorState {
  const dCurrent = (voltage - p.resistance * s.current - p.torqueConstant * s.omega) / p.inductance;
  const dOmega = (p.torqueConstant * s.current - p.friction * s.omega - load) / p.inertia;
  return { current: s.current + dCurrent * dt, omega: s.omega + dOmega * dt };
}

export interface Scenario {
  duration: number;
  dt: number;
  setpoint: (t: number) => number;
  load: (t: number) => number;
  effortWeight?: number;
}

export const stepScenario: Scenario = {
  duration: 1.5,
  dt: 5e-4,
  setpoint: (t) => (t < 0.05 ? 0 : 50),
  load: (t) => 0.02 * (1 + Math.tanh((t - 0.8) / 0.02)),
  effortWeight: 1e-3,
};

export function objective(gains: PidGains, scenario: Scenario = stepScenario, motor: MotorParams = defaultMotor): number {
  const { duration, dt, setpoint, load, effortWeight = 0 } = scenario;
  const control = makeController(gains);
  let plant: MotorState = { omega: 0, current: 0 };
  let cost = 0;
  const steps = Math.round(duration / dt);
  for (let k = 0; k < steps; k++) {
    const t = k * dt;
    const r = setpoint(t);
    const voltage = control(r, plant.omega, dt);
    plant = motorStep(plant, voltage, load(t), dt, motor);
    cost += ((r - plant.omega) ** 2 + effortWeight * voltage ** 2) * dt;
  }
  return cost;
}

export const args: Parameters<typeof objective> = [{ kp: 0.35, ki: 2.2, kd: 0.004 }, stepScenario, defaultMotor];

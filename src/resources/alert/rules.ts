// What the API refuses of an alert that is knowable from the file alone (posthog/api/alert.py
// AlertSerializer.validate, posthog/schema.py): one list of rules, read by validate (through the
// insight, which holds both the query and its alerts) and by the sandbox's model, so both refuse
// the same things in the same words.
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Trends displays that show one value per series, not a line over time (ChartDisplayType). */
export const NON_TIME_SERIES_DISPLAYS = ['BoldNumber', 'ActionsPie', 'ActionsBarValue', 'ActionsTable', 'WorldMap'];

export const NOT_SUPPORTED = 'Alerts are not supported for this insight.';

/** The trends query an alert checks, or undefined when the insight's query is no trends query. */
export function trendsSource(query: unknown): Obj | undefined {
  if (!isObj(query)) return undefined;
  const source = query.kind === 'InsightVizNode' ? query.source : query;
  return isObj(source) && source.kind === 'TrendsQuery' ? source : undefined;
}

/** Whether an insight with this query can carry alerts (its query changed to another kind deletes them). */
export function carriesAlerts(query: unknown): boolean {
  return trendsSource(query) !== undefined;
}

export interface AlertProblem { path: Array<string | number>; message: string }

/** The problems of one alert (fields as the file or a request writes them) on an insight with `query`. */
export function alertProblems(alert: Obj, query: unknown): AlertProblem[] {
  const out: AlertProblem[] = [];
  const source = trendsSource(query);
  if (query !== undefined && !source) return [{ path: [], message: NOT_SUPPORTED }];
  const config = isObj(alert.config) ? alert.config : undefined;
  const series = Array.isArray(source?.series) ? source.series.length : undefined;
  if (config && typeof config.series_index === 'number' && series !== undefined && config.series_index >= series) {
    out.push({ path: ['config', 'series_index'], message: `series_index ${config.series_index} is past the insight's series (it has ${series}: 0 to ${series - 1})` });
  }
  const condition = isObj(alert.condition) ? alert.condition.type : undefined;
  const display = isObj(source?.trendsFilter) ? source.trendsFilter.display : undefined;
  if (typeof condition === 'string' && condition.startsWith('relative_') && typeof display === 'string' && NON_TIME_SERIES_DISPLAYS.includes(display)) {
    out.push({ path: ['condition', 'type'], message: `a relative condition needs a time series: the insight is displayed as ${display}` });
  }
  const configuration = isObj(alert.threshold) && isObj(alert.threshold.configuration) ? alert.threshold.configuration : undefined;
  if (condition === 'absolute_value' && configuration && configuration.type !== 'absolute') {
    out.push({ path: ['threshold', 'configuration', 'type'], message: 'absolute_value needs an absolute threshold (threshold.configuration.type: absolute)' });
  }
  const bounds = configuration && isObj(configuration.bounds) ? configuration.bounds : undefined;
  if (bounds && typeof bounds.lower === 'number' && typeof bounds.upper === 'number' && bounds.lower > bounds.upper) {
    out.push({ path: ['threshold', 'configuration', 'bounds', 'lower'], message: `the lower bound ${bounds.lower} is above the upper bound ${bounds.upper}` });
  }
  return out;
}
